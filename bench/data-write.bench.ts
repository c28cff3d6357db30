// Data service write benchmark (issue 4 item 11): bulk insert in batches of 1,000 records,
// each request one `POST …/data/` with an array of 1,000. The platform side pays for the whole
// edge (tenant, JWT, app and data:write in one query, ajv validation of every record, one
// transaction with an `INSERT … SELECT FROM unnest(…) RETURNING`, record JSON); the bare side
// runs the same INSERT with one prepared `pg` query and returns the same envelope.
// Records/s = requests/s × 1,000 (`perRequest`).
import http from 'node:http';
import type { Benchmark, BenchEnv } from './run.js';

const HOST = 'bench-write.localhost';
const SCHEMA = 'bench_write';
export const WRITE_BATCH = 1000;

function post(base: string, path: string, token: string, body: unknown): Promise<{ status: number; text: string }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const r = http.request(base + path, { method: 'POST', headers: { host: HOST, authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    r.on('error', reject);
    r.end(data);
  });
}

let physical: string | null = null;

/** Site, app and an empty `events` table (as a log-like table would be written), once per run. */
async function world({ platform, user, token, base }: BenchEnv): Promise<string> {
  if (physical) return physical;
  const q = async (sql: string, params: unknown[] = []) => (await platform.pool.query(sql, params)).rows;
  const [org] = await q(`INSERT INTO organizations (slug, name) VALUES ('bench-write-org', 'Bench Write') RETURNING id`);
  await q(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [org.id, user.id]);
  const [site] = await q(`INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ('bench-write', 'Bench write', $1, $2) RETURNING id`, [org.id, SCHEMA]);
  await q(`INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ('bench-write-localhost', $1, $2, true)`, [HOST, site.id]);
  await q(`INSERT INTO apps (site_id, slug, name) VALUES ($1, 'bench', 'Bench')`, [site.id]);
  const made = await post(base, '/api/apps/bench/datatables/create_schema/', token, {
    resources: [{
      name: 'events',
      schema: {
        fields: [
          { name: 'title', type: 'string', constraints: { required: true, maxLength: 200 } },
          { name: 'status', type: 'string', constraints: { enum: ['open', 'closed', 'pending'] } },
          { name: 'views', type: 'integer', constraints: { minimum: 0 } },
        ],
      },
    }],
  });
  if (made.status !== 201) throw new Error(`create_schema: ${made.status} ${made.text}`);
  const [row] = await q(`SELECT physical_name FROM datatables WHERE name = 'events' AND site_id = $1`, [site.id]);
  physical = `"${SCHEMA}"."${row.physical_name}"`;
  return physical;
}

const batch = Array.from({ length: WRITE_BATCH }, (_, i) => ({ title: `event ${i}`, status: ['open', 'closed', 'pending'][i % 3], views: i }));

export const DATA_WRITE_BENCHMARKS: Benchmark[] = [
  {
    name: 'data-bulk POST …/data/ (1,000 records)',
    perRequest: WRITE_BATCH,
    prepare: async (env) => {
      await world(env);
      return {
        method: 'POST',
        url: '/api/apps/bench/datatables/events/data/',
        headers: { authorization: `Bearer ${env.token}`, host: HOST },
        body: batch,
      };
    },
    bare: ({ platform }) => async (request) => {
      const items = request.body as Array<{ title: string; status: string; views: number }>;
      const { rows } = await platform.pool.query({
        name: 'bare_data_bulk',
        text: `INSERT INTO ${physical} ("title", "status", "views") SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) RETURNING "id", "title", "status", "views"`,
        values: [items.map((r) => r.title), items.map((r) => r.status), items.map((r) => r.views)],
      });
      return { status: 'success', message: `${rows.length} records created successfully.`, data: rows };
    },
  },
];
