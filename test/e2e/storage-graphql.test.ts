// Storage over GraphQL (issue 13 item 8): App.buckets, Bucket.objects with the REST filters,
// bucket and object mutations; the same services and errors as REST.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { send } from '../support/storage.js';

const HOST = 'gql.storage.test';
let t: TestApp;
let tok: string;

const gql = async (query: string, variables: Record<string, unknown> = {}, token: string | undefined = tok) => {
  const r = await t.call('POST', '/graphql', { host: HOST, token: token || undefined, body: { query, variables } });
  return r.body as { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };
};

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createUser();
  tok = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'org-gq', owner.id);
  const site = await insertSite(t.platform, org.id, 'site-gq', HOST);
  await insertApp(t.platform, site.id, 'shop');
});
afterAll(() => t.close());

test('buckets, objects with filters, and the mutations', async () => {
  const created = await gql(
    `mutation { createBucket(app: "shop", input: {name: "Media", slug: "media", allowedMimeTypes: ["text/*"]}) { slug provider visibility fileSizeLimit } }`,
  );
  expect(created.errors).toBeUndefined();
  expect(created.data.createBucket).toEqual({
    slug: 'media',
    provider: 'object_store',
    visibility: 'private',
    fileSizeLimit: 50 * 1024 * 1024,
  });
  for (const p of ['a/one.txt', 'a/two.txt', 'b/three.txt']) {
    const r = await send(t, 'PUT', `/api/apps/shop/storage/buckets/media/objects/${p}`, {
      host: HOST,
      token: tok,
      headers: { 'content-type': 'text/plain' },
      payload: p,
    });
    expect(r.status).toBe(201);
  }
  const listed = await gql(
    `{ app(slug: "shop") { buckets { total items { slug objectCount totalSize objects(filter: {prefix: "a/"}, ordering: "path") { total items { filePath size url } } } } } }`,
  );
  expect(listed.errors).toBeUndefined();
  const bucket = listed.data.app.buckets.items[0];
  expect(bucket).toMatchObject({ slug: 'media', objectCount: 3 });
  expect(bucket.objects.total).toBe(2);
  expect(bucket.objects.items.map((o: { filePath: string }) => o.filePath)).toEqual(['a/one.txt', 'a/two.txt']);
  expect(bucket.objects.items[0].url).toMatch(/\/api\/apps\/shop\/storage\/buckets\/media\/objects\/[0-9a-f-]{36}\/$/);

  const upd = await gql(
    `mutation { updateObject(app: "shop", bucket: "media", object: "a/one.txt", input: {filename: "uno.txt", metadata: {k: 1}}) { filePath metadata } }`,
  );
  expect(upd.data.updateObject).toEqual({ filePath: 'a/uno.txt', metadata: { k: 1 } });
  const moved = await gql(
    `mutation { moveObject(app: "shop", bucket: "media", sourcePath: "a/uno.txt", destinationPath: "b/three.txt") { filePath } }`,
  );
  expect(moved.errors?.[0].extensions?.code).toBe('conflict');
  const copied = await gql(
    `mutation { copyObject(app: "shop", bucket: "media", sourcePath: "a/uno.txt", destinationPath: "c/uno.txt") { filePath metadata } }`,
  );
  expect(copied.data.copyObject).toMatchObject({ filePath: 'c/uno.txt', metadata: { k: 1, copied_from: { path: 'a/uno.txt' } } });
  expect(
    (await gql(`mutation { deleteObject(app: "shop", bucket: "media", object: "c/uno.txt") { filePath } }`)).data.deleteObject,
  ).toEqual({
    filePath: 'c/uno.txt',
  });
  const bad = await gql(`mutation { updateBucket(app: "shop", bucket: "media", input: {visibility: "everyone"}) { slug } }`);
  expect(bad.errors?.[0].extensions?.code).toBe('invalid');
  const anon = await gql(`mutation { createBucket(app: "shop", input: {name: "X"}) { slug } }`, {}, '');
  expect(anon.errors?.[0].extensions?.code).toBe('not_authenticated');
  expect((await gql(`mutation { deleteBucket(app: "shop", bucket: "media") { slug } }`)).data.deleteBucket).toEqual({ slug: 'media' });
});
