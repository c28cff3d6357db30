// Permission-matrix probes of the storage module (buckets and objects, REST and GraphQL).
//
// Refusal rule (subgraphs/storage/storage-access.ts `requireAccess`/`refusal`): the probes act on a
// private bucket the owner created; a caller who can see the site (view_site or storage:read) but
// lacks the storage:<op> the route needs gets 403, one who cannot see it 404. Object routes find
// the object through a read of its bucket first (bucketFor(…, 'read')), so the allowed caller of
// an update, delete, copy or move holds storage:read as well as the permission under test (and
// view_site, as every probe's allowed caller). Two routes answer item by item rather than refuse:
// the bucket list leaves out the private bucket, batch delete reports each refused path (207).
// The document-library routes (view, edit) need Graph configured (GRAPH_*): the matrix and the
// storage isolation tests start the local Graph fake (test/support/graph-fake.ts).
import type { CallResult } from '../app.js';
import { startGraphFake } from '../graph-fake.js';
import type { GraphqlProbe, MatrixWorld, ModuleFixture, Probe } from './types.js';

/** The local Graph fake and the GRAPH_* variables that point the platform at it. */
export async function startMatrixGraph(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const creds = { tenantId: 'matrix-tenant', clientId: 'matrix-client', clientSecret: 'matrix-secret' };
  const fake = await startGraphFake(creds);
  return {
    env: {
      GRAPH_TENANT_ID: creds.tenantId,
      GRAPH_CLIENT_ID: creds.clientId,
      GRAPH_CLIENT_SECRET: creds.clientSecret,
      GRAPH_BASE_URL: `${fake.url}/v1.0`,
      GRAPH_AUTHORITY_URL: fake.url,
    },
    close: () => fake.close(),
  };
}

const BUCKET = 'files';
const LIBRARY = 'library';
const SEE = ['view_site'];
const READ_TOO = ['view_site', 'storage:read'];

const buckets = (w: MatrixWorld) => `/api/apps/${w.app.slug}/storage/buckets/`;
const objects = (w: MatrixWorld, bucket = BUCKET) => `${buckets(w)}${bucket}/objects/`;
const rest = (w: MatrixWorld, url: string, body?: unknown, extra: Partial<Probe> = {}): Probe => ({
  host: w.site.host,
  url,
  body,
  needs: SEE,
  ...extra,
});
const gql = (w: MatrixWorld, query: string, extra: Partial<GraphqlProbe> = {}): GraphqlProbe => ({
  host: w.site.host,
  query,
  needs: SEE,
  ...extra,
});

/** A hand-made multipart form (as a browser sends it); text content only. */
function form(parts: ({ name: string; value: string } | { name: string; filename: string; content: string; type: string })[]) {
  const boundary = `----matrix${Math.random().toString(16).slice(2)}`;
  let body = '';
  for (const p of parts) {
    body +=
      'filename' in p
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\n\r\n${p.content}\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`;
  }
  return { body: `${body}--${boundary}--\r\n`, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const TEXT = { 'content-type': 'text/plain' };

async function createBucket(w: MatrixWorld, body: Record<string, unknown>): Promise<string> {
  const res = await w.asOwner('POST', buckets(w), body);
  if (res.status !== 201) throw new Error(`bucket: ${res.status} ${res.text}`);
  return res.body.data.slug as string;
}

const freshBucket = (w: MatrixWorld) => createBucket(w, { name: w.unique('Matrix bucket '), slug: w.unique('matrix-bucket-') });

/** An object of the private bucket, uploaded by the owner for one probe. */
async function freshObject(w: MatrixWorld, bucket = BUCKET, ext = 'txt'): Promise<{ uuid: string; path: string }> {
  const path = `${w.unique('doc/probe-')}.${ext}`;
  const res = await w.t.call('PUT', `${objects(w, bucket)}${path}`, {
    host: w.site.host,
    token: w.ownerToken,
    body: 'matrix',
    headers: TEXT,
  });
  if (res.status !== 201) throw new Error(`object: ${res.status} ${res.text}`);
  return { uuid: res.body.data.uuid as string, path };
}

function library(w: MatrixWorld): string {
  if (!w.state.libraryDoc) throw new Error('the document-library probes need Graph configured (GRAPH_*, test/support/graph-fake.ts)');
  return w.state.libraryDoc as string;
}

/** The private bucket is missing from the list (a caller without storage:read sees public and own buckets only). */
const listHidesPrivate = (res: CallResult) =>
  res.status === 200 && Array.isArray(res.body?.data) && !res.body.data.some((b: { slug: string }) => b.slug === BUCKET);

/** Batch delete deleted nothing and says why (refused path by path). */
const batchRefused = (res: CallResult) =>
  res.status === 207 && res.body?.data?.deleted_count === 0 && /permission/i.test(String(res.body?.data?.failed?.[0]?.error));

const OBJECT_FIELDS = 'uuid filePath';

export const storageFixture: ModuleFixture = {
  module: 'storage',
  async setup(w) {
    await createBucket(w, { name: 'Matrix files', slug: BUCKET, visibility: 'private' });
    w.state.object = await freshObject(w);
    if (w.t.platform.config.storage.graph) {
      await createBucket(w, { name: 'Matrix library', slug: LIBRARY, provider: 'document_library' });
      const doc = `${w.unique('docs/report-')}.docx`;
      const res = await w.t.call('PUT', `${objects(w, LIBRARY)}${doc}`, {
        host: w.site.host,
        token: w.ownerToken,
        body: 'matrix document',
        headers: { 'content-type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
      });
      if (res.status !== 201) throw new Error(`library document: ${res.status} ${res.text}`);
      w.state.libraryDoc = doc;
    }
  },
  routes: {
    'GET /apps/:app/storage/buckets/': async (w) => rest(w, `${buckets(w)}?page_size=100`, undefined, { deniedBy: listHidesPrivate }),
    'POST /apps/:app/storage/buckets/': async (w) => rest(w, buckets(w), { name: w.unique('New bucket '), slug: w.unique('new-bucket-') }),
    'GET /apps/:app/storage/buckets/:bucket/': async (w) => rest(w, `${buckets(w)}${BUCKET}/`),
    'PATCH /apps/:app/storage/buckets/:bucket/': async (w) => rest(w, `${buckets(w)}${BUCKET}/`, { description: 'patched' }),
    'DELETE /apps/:app/storage/buckets/:bucket/': async (w) => rest(w, `${buckets(w)}${await freshBucket(w)}/`),
    'GET /apps/:app/storage/buckets/:bucket/objects/': async (w) => rest(w, `${objects(w)}?prefix=doc/&ordering=-created_at`),
    'POST /apps/:app/storage/buckets/:bucket/objects/': async (w) => {
      const f = form([
        { name: 'path', value: `${w.unique('up/form-')}.txt` },
        { name: 'metadata', value: '{"probe": true}' },
        { name: 'file', filename: 'form.txt', content: 'multipart', type: 'text/plain' },
      ]);
      return rest(w, objects(w), f.body, { headers: f.headers });
    },
    'POST /apps/:app/storage/buckets/:bucket/objects/upload/': async (w) => {
      const f = form([
        { name: 'path', value: `${w.unique('up/upload-')}.txt` },
        { name: 'file', filename: 'upload.txt', content: 'multipart', type: 'text/plain' },
      ]);
      return rest(w, `${objects(w)}upload/`, f.body, { headers: f.headers });
    },
    'POST /apps/:app/storage/buckets/:bucket/objects/search/': async (w) => rest(w, `${objects(w)}search/`, { prefix: 'doc/' }),
    'POST /apps/:app/storage/buckets/:bucket/objects/copy/': async (w) =>
      rest(
        w,
        `${objects(w)}copy/`,
        { source_path: (w.state.object as { path: string }).path, destination_path: `${w.unique('copies/c-')}.txt` },
        { needs: READ_TOO },
      ),
    'POST /apps/:app/storage/buckets/:bucket/objects/move/': async (w) =>
      rest(
        w,
        `${objects(w)}move/`,
        { source_path: (await freshObject(w)).path, destination_path: `${w.unique('moved/m-')}.txt` },
        { needs: READ_TOO },
      ),
    'POST /apps/:app/storage/buckets/:bucket/objects/batch-upload/': async (w) => {
      const paths = [`${w.unique('batch/b-')}.txt`, `${w.unique('batch/b-')}.txt`];
      const f = form([
        { name: 'paths', value: JSON.stringify(paths) },
        { name: 'files', filename: 'one.txt', content: 'one', type: 'text/plain' },
        { name: 'files', filename: 'two.txt', content: 'two', type: 'text/plain' },
      ]);
      return rest(w, `${objects(w)}batch-upload/`, f.body, { headers: f.headers });
    },
    'POST /apps/:app/storage/buckets/:bucket/objects/batch-delete/': async (w) =>
      rest(w, `${objects(w)}batch-delete/`, { paths: [(await freshObject(w)).path] }, { needs: READ_TOO, deniedBy: batchRefused }),
    'GET /apps/:app/storage/buckets/:bucket/objects/:key/view/': async (w) =>
      rest(w, `${objects(w, LIBRARY)}${encodeURIComponent(library(w))}/view/`, undefined, { headers: { accept: 'application/json' } }),
    'GET /apps/:app/storage/buckets/:bucket/objects/:key/edit/': async (w) =>
      rest(w, `${objects(w, LIBRARY)}${encodeURIComponent(library(w))}/edit/`, undefined, {
        headers: { accept: 'application/json' },
        needs: READ_TOO,
      }),
    'PUT /apps/:app/storage/buckets/:bucket/objects/*': async (w) =>
      rest(w, `${objects(w)}${w.unique('raw/put-')}.txt`, 'raw body', { headers: { ...TEXT, 'x-metadata-probe': 'put' } }),
    'POST /apps/:app/storage/buckets/:bucket/objects/*': async (w) =>
      rest(w, `${objects(w)}${w.unique('raw/post-')}.txt`, 'raw body', { headers: TEXT }),
    'GET /apps/:app/storage/buckets/:bucket/objects/*': async (w) => rest(w, `${objects(w)}${(w.state.object as { uuid: string }).uuid}/`),
    'PATCH /apps/:app/storage/buckets/:bucket/objects/:uuid/': async (w) =>
      rest(w, `${objects(w)}${(await freshObject(w)).uuid}/`, { metadata: { patched: true } }, { needs: READ_TOO }),
    'DELETE /apps/:app/storage/buckets/:bucket/objects/:uuid/': async (w) =>
      rest(w, `${objects(w)}${(await freshObject(w)).uuid}/`, undefined, { needs: READ_TOO }),
    'DELETE /apps/:app/storage/buckets/:bucket/object/*': async (w) =>
      rest(w, `${buckets(w)}${BUCKET}/object/${(await freshObject(w)).path}`, undefined, { needs: READ_TOO }),
  },
  fields: {
    'Mutation.createBucket': async (w) =>
      gql(w, `mutation { createBucket(app: "${w.app.slug}", input: {name: "${w.unique('Gql bucket ')}"}) { slug } }`),
    'Mutation.updateBucket': async (w) =>
      gql(w, `mutation { updateBucket(app: "${w.app.slug}", bucket: "${BUCKET}", input: {description: "g"}) { slug } }`),
    'Mutation.deleteBucket': async (w) =>
      gql(w, `mutation { deleteBucket(app: "${w.app.slug}", bucket: "${await freshBucket(w)}") { slug } }`),
    'Mutation.uploadObject': async (w) =>
      gql(
        w,
        `mutation ($file: Upload!, $path: String) { uploadObject(app: "${w.app.slug}", bucket: "${BUCKET}", file: $file, path: $path) { ${OBJECT_FIELDS} } }`,
        {
          variables: { path: `${w.unique('gql/upload-')}.txt` },
          upload: { variable: 'file', filename: 'gql.txt', content: 'over graphql', type: 'text/plain' },
        },
      ),
    'Mutation.updateObject': async (w) =>
      gql(
        w,
        `mutation { updateObject(app: "${w.app.slug}", bucket: "${BUCKET}", object: "${(await freshObject(w)).uuid}", input: {metadata: {g: 1}}) { ${OBJECT_FIELDS} } }`,
        { needs: READ_TOO },
      ),
    'Mutation.copyObject': async (w) =>
      gql(
        w,
        `mutation { copyObject(app: "${w.app.slug}", bucket: "${BUCKET}", sourcePath: "${(w.state.object as { path: string }).path}", destinationPath: "${w.unique('gql/copy-')}.txt") { ${OBJECT_FIELDS} } }`,
        { needs: READ_TOO },
      ),
    'Mutation.moveObject': async (w) =>
      gql(
        w,
        `mutation { moveObject(app: "${w.app.slug}", bucket: "${BUCKET}", sourcePath: "${(await freshObject(w)).path}", destinationPath: "${w.unique('gql/move-')}.txt") { ${OBJECT_FIELDS} } }`,
        { needs: READ_TOO },
      ),
    'Mutation.deleteObject': async (w) =>
      gql(w, `mutation { deleteObject(app: "${w.app.slug}", bucket: "${BUCKET}", object: "${(await freshObject(w)).uuid}") { id } }`, {
        needs: READ_TOO,
      }),
  },
};
