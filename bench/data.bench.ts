// Data service benchmarks (issue 4 item 11) on a flat_table of 100,000 rows, created through
// create_schema and filled with one INSERT … SELECT generate_series. The platform side goes
// through the whole edge (tenant, JWT, app, data:read, catalogue, query builder, record JSON);
// the bare side runs the same SQL with one prepared `pg` query and returns the same envelope.
import { benchCallers } from './callers.js';
import { benchDataTable } from './data-fixture.js';
import type { Benchmark, BenchEnv } from './bench-types.js';

const HOST = 'bench-data.localhost';
const COLUMNS = '"id", "title", "status", "views", "created_at"';
export const DATA_PAGE_URL = '/api/apps/bench/datatables/items/data/?status=open&views__gte=100&ordering=-created_at&page_size=25';

let physical: string | null = null;

/** Site, app and the 100,000-row table, once per run (shared with bench/graphql.bench.ts). */
export async function dataWorld(env: BenchEnv): Promise<string> {
  if (physical) return physical;
  physical = await benchDataTable(env, 'bench-data', {
    name: 'items',
    schema: {
      fields: [
        { name: 'title', type: 'string', constraints: { required: true } },
        { name: 'status', type: 'string', constraints: { enum: ['open', 'closed', 'pending'] } },
        { name: 'views', type: 'integer' },
        { name: 'created_at', type: 'datetime' },
      ],
    },
  });
  await env.platform.pool.query(
    `INSERT INTO ${physical} ("title", "status", "views", "created_at")
     SELECT 'item ' || g, (ARRAY['open', 'closed', 'pending'])[1 + g % 3], g % 1000, now() - g * interval '1 minute'
       FROM generate_series(1, 100000) AS g`,
  );
  await env.platform.pool.query(`ANALYZE ${physical}`);
  return physical;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}`, host: HOST });

export const DATA_BENCHMARKS: Benchmark[] = [
  {
    name: 'data-get GET …/data/{id}/',
    prepare: async (env) => {
      const table = await dataWorld(env);
      const [row] = (await env.platform.pool.query(`SELECT "id" FROM ${table} ORDER BY "id" OFFSET 50000 LIMIT 1`)).rows;
      return { method: 'GET', url: `/api/apps/bench/datatables/items/data/${row.id}/`, headers: auth(env.token) };
    },
    // 200 callers × 1,000 rows spread over the table: per-caller grants and hot pages rarely repeat.
    cold: async (env) => {
      const table = await dataWorld(env);
      const tokens = await benchCallers(env, 'bench-data-org', ['view_site', 'data:read'], 200);
      const ids = (await env.platform.pool.query(`SELECT "id" FROM ${table} ORDER BY random() LIMIT 1000`)).rows.map((r) => r.id);
      return ids.map((id, i) => ({
        method: 'GET' as const,
        url: `/api/apps/bench/datatables/items/data/${id}/`,
        headers: auth(tokens[i % tokens.length]),
      }));
    },
    bare:
      ({ platform }) =>
      async (request) => {
        const id = request.url.split('/data/')[1].replace(/\/$/, '');
        const { rows } = await platform.pool.query({
          name: 'bare_data_get',
          text: `SELECT ${COLUMNS} FROM ${physical} WHERE "id" = $1::uuid`,
          values: [id],
        });
        return { status: 'success', data: rows[0] };
      },
  },
  {
    name: 'data-page GET …/data/?status&views__gte&ordering (25)',
    prepare: async (env) => {
      await dataWorld(env);
      return { method: 'GET', url: DATA_PAGE_URL, headers: auth(env.token) };
    },
    bare:
      ({ platform }) =>
      async () => {
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
