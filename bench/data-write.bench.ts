// Data service write benchmark (issue 4 item 11): bulk insert in batches of 1,000 records,
// each request one `POST …/data/` with an array of 1,000. The platform side pays for the whole
// edge (tenant, JWT, app and data:write in one query, ajv validation of every record, one
// transaction with an `INSERT … SELECT FROM unnest(…) RETURNING`, record JSON); the bare side
// runs the same INSERT with one prepared `pg` query and returns the same envelope.
// Records/s = requests/s × 1,000 (`perRequest`).
import { benchDataTable } from './data-fixture.js';
import type { Benchmark, BenchEnv } from './bench-types.js';

const HOST = 'bench-write.localhost';
export const WRITE_BATCH = 1000;

let physical: string | null = null;

/** Site, app and an empty `events` table (as a log-like table would be written), once per run. */
async function world(env: BenchEnv): Promise<string> {
  if (physical) return physical;
  physical = await benchDataTable(env, 'bench-write', {
    name: 'events',
    schema: {
      fields: [
        { name: 'title', type: 'string', constraints: { required: true, maxLength: 200 } },
        { name: 'status', type: 'string', constraints: { enum: ['open', 'closed', 'pending'] } },
        { name: 'views', type: 'integer', constraints: { minimum: 0 } },
      ],
    },
  });
  return physical;
}

const batch = Array.from({ length: WRITE_BATCH }, (_, i) => ({
  title: `event ${i}`,
  status: ['open', 'closed', 'pending'][i % 3],
  views: i,
}));

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
    bare:
      ({ platform }) =>
      async (request) => {
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
