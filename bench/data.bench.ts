// Data service benchmarks (issue 4 item 11) on a flat_table of 100,000 rows, created through
// create_schema and filled with one INSERT … SELECT generate_series. The platform side goes
// through the whole edge (tenant, JWT, app, data:read, catalogue, query builder, record JSON);
// the bare side runs the same SQL with one prepared `pg` query and returns the same envelope.
import http from 'node:http';
import type { Benchmark, BenchEnv } from './run.js';

const HOST = 'bench-data.localhost';
const SCHEMA = 'bench_data';
const COLUMNS = '"id", "title", "status", "views", "created_at"';
const PAGE_URL = '/api/apps/bench/datatables/items/data/?status=open&views__gte=100&ordering=-created_at&page_size=25';

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

/** Site, app and the 100,000-row table, once per run. */
async function world({ platform, user, token, base }: BenchEnv): Promise<string> {
  if (physical) return physical;
  const q = async (sql: string, params: unknown[] = []) => (await platform.pool.query(sql, params)).rows;
  const [org] = await q(`INSERT INTO organizations (slug, name) VALUES ('bench-data-org', 'Bench Data') RETURNING id`);
  await q(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [org.id, user.id]);
  const [site] = await q(`INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ('bench-data', 'Bench data', $1, $2) RETURNING id`, [org.id, SCHEMA]);
  await q(`INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ('bench-data-localhost', $1, $2, true)`, [HOST, site.id]);
  await q(`INSERT INTO apps (site_id, slug, name) VALUES ($1, 'bench', 'Bench')`, [site.id]);
  const made = await post(base, '/api/apps/bench/datatables/create_schema/', token, {
    resources: [{
      name: 'items',
      schema: {
        fields: [
          { name: 'title', type: 'string', constraints: { required: true } },
          { name: 'status', type: 'string', constraints: { enum: ['open', 'closed', 'pending'] } },
          { name: 'views', type: 'integer' },
          { name: 'created_at', type: 'datetime' },
        ],
      },
    }],
  });
  if (made.status !== 201) throw new Error(`create_schema: ${made.status} ${made.text}`);
  const [row] = await q(`SELECT physical_name FROM datatables WHERE name = 'items' AND site_id = $1`, [site.id]);
  physical = `"${SCHEMA}"."${row.physical_name}"`;
  await q(
    `INSERT INTO ${physical} ("title", "status", "views", "created_at")
     SELECT 'item ' || g, (ARRAY['open', 'closed', 'pending'])[1 + g % 3], g % 1000, now() - g * interval '1 minute'
       FROM generate_series(1, 100000) AS g`,
  );
  await q(`ANALYZE ${physical}`);
  return physical;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}`, host: HOST });

export const DATA_BENCHMARKS: Benchmark[] = [
  {
    name: 'data-get GET …/data/{id}/',
    prepare: async (env) => {
      const table = await world(env);
      const [row] = (await env.platform.pool.query(`SELECT "id" FROM ${table} ORDER BY "id" OFFSET 50000 LIMIT 1`)).rows;
      return { method: 'GET', url: `/api/apps/bench/datatables/items/data/${row.id}/`, headers: auth(env.token) };
    },
    bare: ({ platform }) => async (request) => {
      const id = (request.params as Record<string, string>)['*'] ?? request.url.split('/data/')[1].replace(/\/$/, '');
      const { rows } = await platform.pool.query({ name: 'bare_data_get', text: `SELECT ${COLUMNS} FROM ${physical} WHERE "id" = $1::uuid`, values: [id] });
      return { status: 'success', data: rows[0] };
    },
  },
  {
    name: 'data-page GET …/data/?status&views__gte&ordering (25)',
    prepare: async (env) => {
      await world(env);
      return { method: 'GET', url: PAGE_URL, headers: auth(env.token) };
    },
    bare: ({ platform }) => async () => {
      const { rows } = await platform.pool.query({
        name: 'bare_data_page',
        text: `SELECT ${COLUMNS}, count(*) OVER () AS "__total" FROM ${physical} WHERE "status" = $1::text AND "views" >= $2::bigint
               ORDER BY "created_at" DESC, "id" LIMIT $3 OFFSET $4`,
        values: ['open', '100', 25, 0],
      });
      const total = rows.length ? Number(rows[0].__total) : 0;
      return { data: rows.map(({ __total, ...r }) => r), total, page: 1, page_size: 25 };
    },
  },
];
