// Analytics benchmark (issue 14 item 9): an internal query over a 100,000-row table (a filtered
// aggregate with one parameter) executed through the API, against the same SQL through bare
// `pg`. The platform side pays for the edge, the template parse and PostgreSQL-grammar check,
// the logical-name rewrite, the site role, the READ ONLY transaction and the execution log.
// Executions of one query by one caller run one at a time (docs/analytics.md), so with several
// connections the platform side is sequential: compare with `--connections 1` as well.
import { benchDataTable, postJson } from './data-fixture.js';
import type { Benchmark, BenchEnv } from './bench-types.js';

const SLUG = 'bench-analytics';
const HOST = `${SLUG}.localhost`;
const SQL = 'SELECT region, count(*) AS n, sum(amount) AS total FROM orders WHERE amount > {{ min }} GROUP BY region ORDER BY region';

let physical: string | null = null;

async function world(env: BenchEnv): Promise<string> {
  if (physical) return physical;
  physical = await benchDataTable(env, SLUG, {
    name: 'orders',
    schema: {
      fields: [
        { name: 'region', type: 'string' },
        { name: 'amount', type: 'integer' },
      ],
    },
  });
  await env.platform.pool.query(
    `INSERT INTO ${physical} ("region", "amount") SELECT (ARRAY['north', 'south', 'east', 'west'])[1 + g % 4], g % 1000 FROM generate_series(1, 100000) AS g`,
  );
  await env.platform.pool.query(`ANALYZE ${physical}`);
  const made = await postJson(env.base, HOST, '/api/apps/bench/analytics/queries/', env.token, {
    name: 'Regions',
    connection_type: 'internal',
    query_text: SQL,
  });
  if (made.status !== 201) throw new Error(`create query: ${made.status} ${made.text}`);
  return physical;
}

export const ANALYTICS_BENCHMARKS: Benchmark[] = [
  {
    name: 'analytics-internal POST …/queries/{slug}/execute/ (100,000 rows, filtered aggregate)',
    volatile: ['execution_key'],
    prepare: async (env) => {
      await world(env);
      return {
        method: 'POST',
        url: '/api/apps/bench/analytics/queries/regions/execute/',
        headers: { authorization: `Bearer ${env.token}`, host: HOST, 'content-type': 'application/json' },
        body: { params: { min: 500 } },
      };
    },
    bare:
      ({ platform }) =>
      async () => {
        const { rows } = await platform.pool.query({
          name: 'bare_analytics_regions',
          text: `SELECT region, count(*) AS n, sum(amount) AS total FROM ${physical} WHERE amount > $1 GROUP BY region ORDER BY region`,
          values: [500],
        });
        return { status: 'success', message: 'Query executed.', data: rows, total: rows.length, truncated: false, execution_key: 'bare' };
      },
  },
];
