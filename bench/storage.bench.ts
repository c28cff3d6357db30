// Storage benchmarks (issue 13 item 9). The object list with filters on a bucket of 100,000
// objects (rows inserted with one INSERT … SELECT generate_series) against the same SQL through
// bare `pg`. Upload/download throughput and the 1 GiB upload's RSS are in
// bench/storage-throughput.ts (`npm run bench -- --only storage-throughput` is not autocannon:
// run `node --import tsx bench/storage-throughput.ts`).
import type { Benchmark, BenchEnv } from './bench-types.js';

const HOST = 'bench-storage.localhost';
const LIST_URL =
  '/api/apps/bench/storage/buckets/files/objects/?prefix=dir-7/&size__gte=1000&mimetype_category=image&ordering=-created_at&page_size=25';

let bucketId: number | null = null;
let siteId: number | null = null;

async function world({ platform, user }: BenchEnv): Promise<number> {
  if (bucketId !== null) return bucketId;
  const q = async (sql: string, params: unknown[] = []) => (await platform.pool.query(sql, params)).rows;
  const [org] = await q(`INSERT INTO organizations (slug, name) VALUES ('bench-storage-org', 'B') RETURNING id`);
  await q(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [org.id, user.id]);
  const [site] = await q(
    `INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ('bench-storage', 'B', $1, 'bench_storage') RETURNING id`,
    [org.id],
  );
  await q(`INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ('bench-storage-localhost', $1, $2, true)`, [HOST, site.id]);
  const [app] = await q(`INSERT INTO apps (site_id, slug, name) VALUES ($1, 'bench', 'Bench') RETURNING id`, [site.id]);
  const [bucket] = await q(
    `INSERT INTO storage_buckets (site_id, app_id, name, slug, provider, file_size_limit, created_by_id)
     VALUES ($1, $2, 'Files', 'files', 'object_store', 52428800, $3) RETURNING id`,
    [site.id, app.id, user.id],
  );
  await q(
    `INSERT INTO storage_objects (site_id, bucket_id, file_path, filename, size, mimetype, metadata, storage_key, etag, created_by_id, modified_by_id, created_at)
     SELECT $1, $2, 'dir-' || (g % 50) || '/file-' || g || '.bin', 'file-' || g || '.bin', g % 5000,
       (ARRAY['image/png', 'text/plain', 'application/pdf', 'image/jpeg'])[1 + g % 4], jsonb_build_object('n', g),
       'k/' || g, md5(g::text), $3, $3, now() - g * interval '1 minute'
     FROM generate_series(1, 100000) g`,
    [site.id, bucket.id, user.id],
  );
  await q(`UPDATE storage_buckets SET object_count = 100000 WHERE id = $1`, [bucket.id]);
  await q('ANALYZE storage_objects');
  siteId = site.id;
  bucketId = bucket.id;
  return bucket.id;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}`, host: HOST });

export const STORAGE_BENCHMARKS: Benchmark[] = [
  {
    name: 'storage-list GET …/objects/?prefix&size__gte&mimetype_category&ordering (25 of 100,000)',
    prepare: async (env) => {
      await world(env);
      return { method: 'GET', url: LIST_URL, headers: auth(env.token) };
    },
    bare:
      ({ platform }) =>
      async () => {
        const { rows } = await platform.pool.query({
          name: 'bare_storage_list',
          text: `SELECT o.id::float8 AS id, o.uuid, o.filename, o.file_path, o.size::float8 AS size, o.mimetype, o.created_at, o.updated_at,
                   count(*) OVER () AS "__total"
                 FROM storage_objects o WHERE o.site_id = $1 AND o.bucket_id = $2 AND o.file_path LIKE $3 AND o.size >= $4 AND o.mimetype LIKE $5
                 ORDER BY o.created_at DESC, o.id ASC LIMIT $6 OFFSET $7`,
          values: [siteId, bucketId, 'dir-7/%', 1000, 'image/%', 25, 0],
        });
        const total = rows.length ? Number(rows[0].__total) : 0;
        return {
          status: 'success',
          message: 'Objects.',
          status_code: 200,
          data: rows.map(({ __total, ...r }) => r),
          total,
          page: 1,
          page_size: 25,
        };
      },
  },
];
