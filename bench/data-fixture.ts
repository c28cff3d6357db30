// The world of the data service benchmarks: an organization owned by the bench user, a site on
// its own host, app `bench`, and one datatable made through create_schema (as a client would).
import http from 'node:http';
import type { BenchEnv } from './bench-types.js';

export function postJson(
  base: string,
  host: string,
  path: string,
  token: string,
  body: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = { host, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const r = http.request(base + path, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    r.on('error', reject);
    r.end(JSON.stringify(body));
  });
}

/**
 * Creates site `slug` (schema `slug` with `_`, host `slug.localhost`) and its table; returns
 * the table's quoted qualified name for the bare side's SQL.
 */
export async function benchDataTable(env: BenchEnv, slug: string, resource: Record<string, unknown>): Promise<string> {
  return (await benchDataTables(env, slug, [resource]))[resource.name as string];
}

/**
 * Creates site `slug` and its tables in one create_schema call (references between them
 * allowed); returns each table's quoted qualified name by resource name.
 */
export async function benchDataTables(
  { platform, user, token, base }: BenchEnv,
  slug: string,
  resources: Array<Record<string, unknown>>,
): Promise<Record<string, string>> {
  const q = async (sql: string, params: unknown[] = []) => (await platform.pool.query(sql, params)).rows;
  const host = `${slug}.localhost`;
  const schema = slug.replace(/-/g, '_');
  const [org] = await q(`INSERT INTO organizations (slug, name) VALUES ($1, $1) RETURNING id`, [`${slug}-org`]);
  await q(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [org.id, user.id]);
  const [site] = await q(`INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ($1, $1, $2, $3) RETURNING id`, [
    slug,
    org.id,
    schema,
  ]);
  await q(`INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ($1, $2, $3, true)`, [`${slug}-localhost`, host, site.id]);
  await q(`INSERT INTO apps (site_id, slug, name) VALUES ($1, 'bench', 'Bench')`, [site.id]);
  const made = await postJson(base, host, '/api/apps/bench/datatables/create_schema/', token, { resources });
  if (made.status !== 201) throw new Error(`create_schema: ${made.status} ${made.text}`);
  const out: Record<string, string> = {};
  for (const r of resources) {
    const [row] = await q(`SELECT physical_name FROM datatables WHERE name = $1 AND site_id = $2`, [r.name, site.id]);
    out[r.name as string] = `"${schema}"."${row.physical_name}"`;
  }
  return out;
}
