// Object list filters, legacy search, metadata PATCH, copy, move, batch upload and batch delete
// (issue 13 items 5-6).
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { PNG, send, upload } from '../support/storage.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

const HOST = 'list.storage.test';
const B = '/api/apps/shop/storage/buckets/';
let t: TestApp;
let owner: User;
let tok: string;

const call = (method: string, url: string, body?: unknown) => t.call(method, url, { host: HOST, token: tok, body });
const put = (bucket: string, p: string, payload: string | Buffer, type = 'text/plain', headers: Record<string, string> = {}) =>
  send(t, 'PUT', `${B}${bucket}/objects/${p}`, { host: HOST, token: tok, headers: { 'content-type': type, ...headers }, payload });
const list = async (qs: string) => {
  const r = await call('GET', `${B}main/objects/?${qs}`);
  expect(r.status).toBe(200);
  return r.body as { data: { file_path: string }[]; total: number; page: number; page_size: number };
};
const paths = async (qs: string) => (await list(qs)).data.map((o) => o.file_path).sort();

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser({ username: 'lister' });
  tok = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'org-ls', owner.id);
  const site = await insertSite(t.platform, org.id, 'site-ls', HOST);
  await insertApp(t.platform, site.id, 'shop');
  for (const slug of ['main', 'other']) expect((await call('POST', B, { name: slug, slug })).status).toBe(201);
  expect((await put('main', 'docs/Report.txt', 'a'.repeat(100), 'text/plain', { 'x-metadata-project': 'Apollo' })).status).toBe(201);
  expect((await put('main', 'docs/notes.md', 'b'.repeat(2000), 'text/markdown')).status).toBe(201);
  expect((await put('main', 'img/pixel.png', PNG, 'application/octet-stream')).status).toBe(201);
  expect((await put('main', 'data.json', '{"a":1}', 'application/json')).status).toBe(201);
  await t.platform.pool.query(`UPDATE storage_objects SET created_at = '2024-03-15T10:00:00Z' WHERE file_path = 'data.json'`);
});
afterAll(() => t.close());

describe('object list', () => {
  test('envelope, page size default and maximum, ordering', async () => {
    const all = await list('');
    expect(all).toMatchObject({ status: 'success', status_code: 200, total: 4, page: 1, page_size: 10 });
    expect(Object.keys(all.data[0]).sort()).toEqual([
      'created_at',
      'file_path',
      'filename',
      'id',
      'mimetype',
      'size',
      'updated_at',
      'uuid',
    ]);
    expect((await list('page_size=500')).page_size).toBe(100);
    expect((await list('page_size=1&page=2')).data).toHaveLength(1);
    expect((await list('ordering=-size')).data[0].file_path).toBe('docs/notes.md');
    expect((await list('ordering=path')).data[0].file_path).toBe('data.json');
    expect((await call('GET', `${B}main/objects/?ordering=secret`)).status).toBe(400);
  });

  test('path, filename and search filters', async () => {
    expect(await paths('search=REPORT')).toEqual(['docs/Report.txt']);
    expect(await paths('file=data.json')).toEqual(['data.json']);
    expect(await paths('prefix=docs/')).toEqual(['docs/Report.txt', 'docs/notes.md']);
    expect(await paths('file__startswith=Docs/')).toEqual([]);
    expect(await paths('file__istartswith=Docs/')).toEqual(['docs/Report.txt', 'docs/notes.md']);
    expect(await paths('file__icontains=PIX')).toEqual(['img/pixel.png']);
    expect(await paths('filename=notes.md')).toEqual(['docs/notes.md']);
    expect(await paths('filename__icontains=EPO')).toEqual(['docs/Report.txt']);
    expect(await paths('filename__istartswith=rep')).toEqual(['docs/Report.txt']);
    expect(await paths('filename__iendswith=.PNG')).toEqual(['img/pixel.png']);
    // LIKE wildcards in the value are literal.
    expect(await paths('search=%25')).toEqual([]);
  });

  test('size, date and calendar filters with their aliases', async () => {
    expect(await paths('size__gte=100&size__lte=2000')).toEqual(['docs/Report.txt', 'docs/notes.md']);
    expect(await paths('min_size=101')).toEqual(['docs/notes.md']);
    expect(await paths('max_size=7')).toEqual(['data.json']);
    expect(await paths('size__gt=7&size__lt=100')).toEqual(['img/pixel.png']);
    expect(await paths('created_at__year=2024')).toEqual(['data.json']);
    expect(await paths('created_at__year=2024&created_at__month=3&created_at__day=15')).toEqual(['data.json']);
    expect(await paths('created_at__date=2024-03-15')).toEqual(['data.json']);
    expect(await paths('created_before=2025-01-01T00:00:00Z')).toEqual(['data.json']);
    expect(await paths('created_after=2025-01-01')).toHaveLength(3);
    expect(await paths('created_at__gte=2024-03-15T09:00:00Z&created_at__lte=2024-03-15T11:00:00Z')).toEqual(['data.json']);
    expect((await paths('modified_after=2025-01-01')).length).toBe(4);
    expect((await call('GET', `${B}main/objects/?created_after=yesterday`)).status).toBe(400);
    expect((await call('GET', `${B}main/objects/?size__gte=big`)).status).toBe(400);
  });

  test('MIME, user and metadata filters', async () => {
    expect(await paths('mimetype=image/png')).toEqual(['img/pixel.png']);
    expect(await paths('mimetype__istartswith=TEXT/')).toEqual(['docs/Report.txt', 'docs/notes.md']);
    expect(await paths('mimetype__icontains=json')).toEqual(['data.json']);
    expect(await paths('mimetype__in=image/png,application/json')).toEqual(['data.json', 'img/pixel.png']);
    expect(await paths('mimetype_category=image')).toEqual(['img/pixel.png']);
    expect((await call('GET', `${B}main/objects/?mimetype_category=fonts`)).status).toBe(400);
    expect(await paths('created_by_me=true')).toHaveLength(4);
    expect(await paths('modified_by_me=false')).toHaveLength(0);
    expect(await paths(`created_by=${owner.id}`)).toHaveLength(4);
    expect(await paths('created_by__username=lister')).toHaveLength(4);
    expect(await paths('created_by__username=nobody')).toHaveLength(0);
    expect(await paths('created_by__username__icontains=IST')).toHaveLength(4);
    expect(await paths('modified_by__username__icontains=zzz')).toHaveLength(0);
    expect(await paths('metadata_search=apollo')).toEqual(['docs/Report.txt']);
  });

  test('legacy search has its own envelope and limits', async () => {
    const r = await call('POST', `${B}main/objects/search/`, {
      prefix: 'docs/',
      search: 'report',
      sortBy: { column: 'size', order: 'desc' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status_code: 200, data: { count: 1, bucket: 'main' } });
    expect(r.body.data.objects[0]).toMatchObject({ file: 'docs/Report.txt' });
    expect((await call('POST', `${B}main/objects/search/`, { limit: 1001 })).status).toBe(400);
    const paged = await call('POST', `${B}main/objects/search/`, { limit: 2, offset: 1, sortBy: { column: 'filename' } });
    expect(paged.body.data).toMatchObject({ count: 4 });
    expect(paged.body.data.objects).toHaveLength(2);
  });
});

describe('metadata PATCH, copy, move', () => {
  test('PATCH renames and moves keeping the uuid; immutable fields refused', async () => {
    const r = await put('main', 'p/one.txt', 'one');
    const uuid = r.body.data.uuid;
    const renamed = await call('PATCH', `${B}main/objects/${uuid}/`, { filename: 'uno.txt', metadata: { k: 'v' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ uuid, filename: 'uno.txt', file_path: 'p/uno.txt', metadata: { k: 'v' } });
    const moved = await call('PATCH', `${B}main/objects/${uuid}/`, { file: 'q/eins.txt' });
    expect(moved.body.data).toMatchObject({ uuid, filename: 'eins.txt', file_path: 'q/eins.txt' });
    const bad = await call('PATCH', `${B}main/objects/${uuid}/`, { size: 1, mimetype: 'x/y' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['mimetype', 'size']);
    const dl = await send(t, 'GET', `${B}main/objects/q/eins.txt`, { host: HOST, token: tok });
    expect(dl.raw.toString()).toBe('one');
  });

  test('copy creates a new object with copied_from; cross-provider and missing source refused', async () => {
    await put('main', 'c/src.txt', 'copy me', 'text/plain', { 'x-metadata-tag': 'x' });
    const r = await call('POST', `${B}main/objects/copy/`, {
      source_path: 'c/src.txt',
      destination_bucket: 'other',
      destination_path: 'c/dst.txt',
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      file: 'c/dst.txt',
      bucket_slug: 'other',
      metadata: { tag: 'x', copied_from: { path: 'c/src.txt' } },
    });
    const dl = await send(t, 'GET', `${B}other/objects/c/dst.txt`, { host: HOST, token: tok });
    expect(dl.raw.toString()).toBe('copy me');
    expect((await call('GET', `${B}other/`)).body.data).toMatchObject({ object_count: 1, total_size: 7 });
    const missing = await call('POST', `${B}main/objects/copy/`, { source_path: 'nope.txt', destination_path: 'x.txt' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, status_code: 404 });
    await t.platform.pool.query(`UPDATE storage_buckets SET provider = 'document_library' WHERE slug = 'other'`);
    const cross = await call('POST', `${B}main/objects/copy/`, {
      source_path: 'c/src.txt',
      destination_bucket: 'other',
      destination_path: 'z.txt',
    });
    await t.platform.pool.query(`UPDATE storage_buckets SET provider = 'object_store' WHERE slug = 'other'`);
    expect(cross.status).toBe(400);
    expect(cross.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
  });

  test('move keeps the uuid; onto an existing path 409 with both kept', async () => {
    const a = await put('main', 'm/a.txt', 'A');
    await put('main', 'm/b.txt', 'B');
    const conflict = await call('POST', `${B}main/objects/move/`, { source_path: 'm/a.txt', destination_path: 'm/b.txt' });
    expect(conflict.status).toBe(409);
    expect((await send(t, 'GET', `${B}main/objects/m/a.txt`, { host: HOST, token: tok })).raw.toString()).toBe('A');
    expect((await send(t, 'GET', `${B}main/objects/m/b.txt`, { host: HOST, token: tok })).raw.toString()).toBe('B');
    const moved = await call('POST', `${B}main/objects/move/`, { source_path: 'm/a.txt', destination_path: 'm/c.txt' });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ uuid: a.body.data.uuid, file: 'm/c.txt', filename: 'c.txt' });
    const across = await call('POST', `${B}main/objects/move/`, {
      source_path: 'm/c.txt',
      destination_bucket: 'other',
      destination_path: 'moved/c.txt',
    });
    expect(across.status).toBe(200);
    expect(across.body.data).toMatchObject({ uuid: a.body.data.uuid, bucket_slug: 'other' });
    expect((await send(t, 'GET', `${B}other/objects/moved/c.txt`, { host: HOST, token: tok })).raw.toString()).toBe('A');
  });
});

describe('batch upload and delete, delete by uuid and path', () => {
  test('batch upload: 207 with per-file errors; over 10 files refused', async () => {
    expect((await call('POST', B, { name: 'Images', slug: 'images', allowed_mime_types: ['image/*'] })).status).toBe(201);
    const r = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'images',
      route: 'batch-upload/',
      parts: [
        { name: 'paths', value: JSON.stringify(['a.png', 'b.txt']) },
        { name: 'metadata', value: JSON.stringify([{ n: 1 }, {}]) },
        { name: 'files', filename: 'a.png', content: PNG },
        { name: 'files', filename: 'b.txt', content: 'not an image', type: 'text/plain' },
      ],
    });
    expect(r.status).toBe(207);
    expect(r.body.data).toMatchObject({ uploaded_count: 1, failed_count: 1, total: 2 });
    expect(r.body.data.successful[0]).toMatchObject({ index: 0, path: 'a.png', object: { metadata: { n: 1 } } });
    expect(r.body.data.failed[0]).toMatchObject({ index: 1, path: 'b.txt' });
    const eleven = Array.from({ length: 11 }, (_, i) => ({ name: 'files', filename: `f${i}.png`, content: PNG }));
    const tooMany = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'images',
      route: 'batch-upload/',
      parts: [{ name: 'paths', value: JSON.stringify(eleven.map((f) => f.filename)) }, ...eleven],
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ files: [expect.any(String)] });
    const mismatch = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'images',
      route: 'batch-upload/',
      parts: [
        { name: 'paths', value: '["x.png","y.png"]' },
        { name: 'files', filename: 'x.png', content: PNG },
      ],
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toEqual({ non_field_errors: [expect.any(String)] });
    expect((await call('GET', `${B}images/`)).body.data).toMatchObject({ object_count: 1 });
  });

  test('batch delete: 207 with per-path errors, limits; delete by uuid and by path', async () => {
    await put('main', 'del/1.txt', '1');
    await put('main', 'del/2.txt', '2');
    const r = await call('POST', `${B}main/objects/batch-delete/`, { paths: ['del/1.txt', 'del/1.txt', 'del/missing.txt'] });
    expect(r.status).toBe(207);
    expect(r.body.data).toEqual({ deleted_count: 1, failed: [{ path: 'del/missing.txt', error: expect.any(String) }] });
    expect((await call('POST', `${B}main/objects/batch-delete/`, { paths: [] })).body).toEqual({ paths: [expect.any(String)] });
    expect((await call('POST', `${B}main/objects/batch-delete/`, { paths: Array.from({ length: 101 }, (_, i) => `${i}`) })).status).toBe(
      400,
    );
    const none = await call('POST', `${B}main/objects/batch-delete/`, { paths: ['nothing'] });
    expect(none.status).toBe(207);
    expect(none.body.message).toMatch(/No objects were deleted/);
    expect((await call('DELETE', `${B}main/object/del/2.txt`)).status).toBe(200);
    const three = await put('main', 'del/3.txt', '3');
    expect((await call('DELETE', `${B}main/objects/${three.body.data.uuid}/`)).status).toBe(200);
    expect((await call('GET', `${B}main/objects/?prefix=del/`)).body.total).toBe(0);
  });
});
