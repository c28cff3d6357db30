// GraphQL against bare `pg` and against REST, in one run (issue 11 item 1), on the data
// benchmarks' table of 100,000 rows (bench/data.bench.ts). Each benchmark's platform side is
// `POST /graphql` as a frontend sends it (a query document with variables); its bare side runs
// the same SQL with one prepared `pg` query and answers the same JSON; `rest` is the REST
// route for the same read, measured on the same platform in the same run.
import { dataWorld, DATA_PAGE_URL } from './data.bench.js';
import type { Benchmark, BenchEnv } from './bench-types.js';

const HOST = 'bench-data.localhost';
const COLUMNS = '"id", "title", "status", "views", "created_at"';

const RECORD_QUERY = `query Record($id: ID!) {
  record(app: "bench", table: "items", id: $id) { id data }
}`;

const PAGE_QUERY = `query Page($filter: JSON, $sort: [String!]) {
  records(app: "bench", table: "items", filter: $filter, sort: $sort, pageSize: 25) { total page pageSize items { id data } }
}`;

const auth = (token: string) => ({ authorization: `Bearer ${token}`, host: HOST });

let middleId: string | null = null;

async function oneId(env: BenchEnv): Promise<{ table: string; id: string }> {
  const table = await dataWorld(env);
  if (!middleId) {
    const [row] = (await env.platform.pool.query(`SELECT "id" FROM ${table} ORDER BY "id" OFFSET 50000 LIMIT 1`)).rows;
    middleId = String(row.id);
  }
  return { table, id: middleId };
}

export const GRAPHQL_BENCHMARKS: Benchmark[] = [
  {
    name: 'gql-get record(id)',
    prepare: async (env) => {
      const { id } = await oneId(env);
      return {
        method: 'POST',
        url: '/graphql',
        headers: auth(env.token),
        body: { operationName: 'Record', query: RECORD_QUERY, variables: { id } },
      };
    },
    rest: async (env) => {
      const { id } = await oneId(env);
      return { method: 'GET', url: `/api/apps/bench/datatables/items/data/${id}/`, headers: auth(env.token) };
    },
    bare:
      ({ platform }) =>
      async (request) => {
        const id = (request.body as { variables: { id: string } }).variables.id;
        const table = await dataWorld({ platform } as BenchEnv);
        const { rows } = await platform.pool.query({
          name: 'bare_gql_get',
          text: `SELECT ${COLUMNS} FROM ${table} WHERE "id" = $1::uuid`,
          values: [id],
        });
        return { data: { record: rows[0] ? { id: rows[0].id, data: rows[0] } : null } };
      },
  },
  {
    name: 'gql-page records(25)',
    prepare: async (env) => {
      await dataWorld(env);
      return {
        method: 'POST',
        url: '/graphql',
        headers: auth(env.token),
        body: {
          operationName: 'Page',
          query: PAGE_QUERY,
          variables: { filter: { status: 'open', views__gte: 100 }, sort: ['-created_at'] },
        },
      };
    },
    rest: async (env) => {
      await dataWorld(env);
      return { method: 'GET', url: DATA_PAGE_URL, headers: auth(env.token) };
    },
    bare:
      ({ platform }) =>
      async () => {
        const table = await dataWorld({ platform } as BenchEnv);
        const { rows } = await platform.pool.query({
          name: 'bare_gql_page',
          text: `SELECT ${COLUMNS}, count(*) OVER () AS "__total" FROM ${table} WHERE "status" = $1::text AND "views" >= $2::bigint
               ORDER BY "created_at" DESC, "id" LIMIT $3 OFFSET $4`,
          values: ['open', '100', 25, 0],
        });
        const total = rows.length ? Number(rows[0].__total) : 0;
        const items = rows.map(({ __total, ...r }) => ({ id: r.id, data: r }));
        return { data: { records: { total, page: 1, pageSize: 25, items } } };
      },
  },
];
