// Storage buckets, uploads and downloads on the local object store (issue 13 items 2-4).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { PNG, send, upload } from '../support/storage.js';
import { cleanupIdle } from '../../subgraphs/storage/cleanup.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

const HOST = 'objects.storage.test';
const B = '/api/apps/shop/storage/buckets/';
let t: TestApp;
let owner: User;
let tok: string;

const call = (method: string, url: string, body?: unknown, token: string | undefined = tok) =>
  t.call(method, url, { host: HOST, token, body });
const objectsDir = () => path.join(t.platform.config.dataDir, 'objects');
const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.join(e.parentPath, e.name))
    : [];

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser();
  tok = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'org-st', owner.id);
  const site = await insertSite(t.platform, org.id, 'site-st', HOST);
  await insertApp(t.platform, site.id, 'shop');
});
afterAll(() => t.close());

describe('buckets', () => {
  test('create with defaults, list, read, update, validation', async () => {
    const r = await call('POST', B, { name: 'Photos', slug: 'photos', allowed_mime_types: ['image/*'] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ success: true, status_code: 201 });
    expect(r.body.data).toMatchObject({
      slug: 'photos',
      provider: 'object_store',
      visibility: 'private',
      file_size_limit: 50 * 1024 * 1024,
      allowed_mime_types: ['image/*'],
      object_count: 0,
      total_size: 0,
    });
    expect((await call('POST', B, { name: 'Photos', slug: 'photos' })).status).toBe(409);
    const bad = await call('POST', B, { name: '', file_size_limit: -1, allowed_mime_types: ['not a type'], visibility: 'x' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['allowed_mime_types', 'file_size_limit', 'name', 'visibility']);
    const list = await call('GET', B);
    expect(list.status).toBe(200);
    expect(list.body.data.map((b: { slug: string }) => b.slug)).toContain('photos');
    const upd = await call('PATCH', B + 'photos/', { description: 'pics', file_size_limit: 1000 });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ description: 'pics', file_size_limit: 1000 });
    expect((await call('GET', B + 'photos/')).body.data.description).toBe('pics');
    expect((await call('GET', B + 'nope/')).status).toBe(404);
  });

  test('a document_library bucket without Graph configuration is refused with a clear message', async () => {
    const r = await call('POST', B, { name: 'Docs', provider: 'document_library' });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/document_library is not configured|GRAPH_/);
  });

  test('anonymous callers cannot create buckets', async () => {
    expect((await call('POST', B, { name: 'Anon' }, '')).status).toBe(401);
  });
});

describe('uploads', () => {
  beforeAll(async () => {
    expect((await call('POST', B, { name: 'Files', slug: 'files', file_size_limit: 64 * 1024 })).status).toBe(201);
  });

  test('multipart upload: 201 with the envelope, then upsert by path keeps the uuid (200)', async () => {
    const first = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'files',
      parts: [
        { name: 'path', value: 'docs/readme.txt' },
        { name: 'metadata', value: '{"lang":"en"}' },
        { name: 'file', filename: 'readme.txt', content: 'hello world', type: 'text/plain' },
      ],
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ success: true, status_code: 201 });
    expect(first.body.data).toMatchObject({
      filename: 'readme.txt',
      file_path: 'docs/readme.txt',
      size: 11,
      mimetype: 'text/plain',
      metadata: { lang: 'en' },
      bucket_slug: 'files',
      is_doc_editable: false,
      created_by: owner.id,
    });
    expect(first.body.data.file_url).toContain(`/objects/${first.body.data.uuid}/`);
    // The path field after the file part works too.
    const again = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'files',
      parts: [
        { name: 'file', filename: 'x.txt', content: 'hello again!', type: 'text/plain' },
        { name: 'path', value: 'docs/readme.txt' },
      ],
    });
    expect(again.status).toBe(200);
    expect(again.body.data.uuid).toBe(first.body.data.uuid);
    expect(again.body.data.size).toBe(12);
    const bucket = (await call('GET', B + 'files/')).body.data;
    expect(bucket).toMatchObject({ object_count: 1, total_size: 12 });
    // The replaced content is gone from the disk.
    expect(filesUnder(objectsDir()).filter((f) => !f.includes('.tmp'))).toHaveLength(1);
  });

  test('raw PUT with X-Metadata-* and X-Amz-Meta-* headers; the type comes from the content', async () => {
    const r = await send(t, 'PUT', `${B}files/objects/img/pixel.png`, {
      host: HOST,
      token: tok,
      headers: { 'content-type': 'application/octet-stream', 'x-metadata-Camera-Model': 'X100', 'x-amz-meta-owner': 'me' },
      payload: PNG,
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      file_path: 'img/pixel.png',
      mimetype: 'image/png',
      metadata: { 'camera-model': 'X100', owner: 'me' },
    });
  });

  test('over the limit: 400 and nothing stored; empty: 400 {error}', async () => {
    const before = filesUnder(objectsDir()).length;
    const big = await send(t, 'PUT', `${B}files/objects/big.bin`, {
      host: HOST,
      token: tok,
      headers: { 'content-type': 'application/octet-stream' },
      payload: Buffer.alloc(65 * 1024, 1),
    });
    expect(big.status).toBe(400);
    expect(big.body).toMatchObject({ success: false, status_code: 400 });
    expect(big.body.message).toMatch(/size limit/);
    const bigMultipart = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'files',
      parts: [{ name: 'file', filename: 'big.bin', content: Buffer.alloc(65 * 1024, 1) }],
    });
    expect(bigMultipart.status).toBe(400);
    const empty = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'files',
      parts: [{ name: 'file', filename: 'e.txt', content: '' }],
    });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: expect.any(String) });
    const emptyRaw = await send(t, 'PUT', `${B}files/objects/e.txt`, {
      host: HOST,
      token: tok,
      headers: { 'content-type': 'text/plain' },
      payload: '',
    });
    expect(emptyRaw.status).toBe(400);
    expect(emptyRaw.body).toEqual({ error: expect.any(String) });
    expect(filesUnder(objectsDir()).length).toBe(before);
    expect((await call('GET', `${B}files/objects/?file=big.bin`)).body.total).toBe(0);
  });

  test('the MIME rule uses the detected type, not the client header', async () => {
    // A PNG announced as text/plain is still a PNG: refused in a text-only bucket.
    expect((await call('POST', B, { name: 'Texts', slug: 'texts', allowed_mime_types: ['text/*'] })).status).toBe(201);
    const r = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'texts',
      parts: [{ name: 'file', filename: 'a.txt', content: PNG, type: 'text/plain' }],
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/image\/png.*text\/\*/);
    const ok = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'texts',
      parts: [{ name: 'file', filename: 'a.txt', content: 'plain', type: 'text/plain' }],
    });
    expect(ok.status).toBe(201);
  });
});

describe('large bodies (hashed off the event loop past 1 MiB)', () => {
  const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
  beforeAll(async () => {
    expect((await call('POST', B, { name: 'Big', slug: 'big', file_size_limit: 16 * 1024 * 1024 })).status).toBe(201);
  });

  test('raw PUT and multipart: every byte stored, the ETag is the SHA-256 of the content', async () => {
    const data = crypto.randomBytes(3 * 1024 * 1024 + 5);
    const raw = await send(t, 'PUT', `${B}big/objects/raw.bin`, {
      host: HOST,
      token: tok,
      headers: { 'content-type': 'application/octet-stream' },
      payload: data,
    });
    expect(raw.status).toBe(201);
    const form = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'big',
      parts: [
        { name: 'path', value: 'form.bin' },
        { name: 'file', filename: 'form.bin', content: data.subarray(7) },
      ],
    });
    expect(form.status).toBe(201);
    for (const [ref, content] of [
      ['raw.bin', data],
      ['form.bin', data.subarray(7)],
    ] as const) {
      const r = await send(t, 'GET', `${B}big/objects/${ref}`, { host: HOST, token: tok });
      expect(r.status).toBe(200);
      expect(r.raw.equals(content)).toBe(true);
      expect(r.headers.etag).toBe(`"${sha256(content)}"`);
    }
  });

  test('multipart over the limit after several MiB (cut off mid-stream): 400, nothing stored, no temporary file', async () => {
    const before = filesUnder(objectsDir()).length;
    const r = await upload(t, {
      host: HOST,
      token: tok,
      app: 'shop',
      bucket: 'big',
      parts: [{ name: 'file', filename: 'huge.bin', content: crypto.randomBytes(16 * 1024 * 1024 + 1) }],
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/size limit/);
    expect(filesUnder(objectsDir())).toHaveLength(before);
  });
});

describe('downloads', () => {
  let uuid: string;
  beforeAll(async () => {
    const r = await send(t, 'PUT', `${B}files/objects/dl/naïve résumé.txt`, {
      host: HOST,
      token: tok,
      headers: { 'content-type': 'text/plain' },
      payload: '0123456789',
    });
    expect(r.status).toBe(201);
    uuid = r.body.data.uuid;
  });

  test('by uuid and by path, with the headers', async () => {
    for (const ref of [`${uuid}/`, encodeURI('dl/naïve résumé.txt')]) {
      const r = await send(t, 'GET', `${B}files/objects/${ref}`, { host: HOST, token: tok });
      expect(r.status).toBe(200);
      expect(r.raw.toString()).toBe('0123456789');
      expect(r.headers['content-type']).toMatch(/^text\/plain/);
      expect(r.headers['content-length']).toBe('10');
      expect(r.headers['content-disposition']).toBe(
        `inline; filename="na_ve r_sum_.txt"; filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.txt`,
      );
      expect(r.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
      expect(r.headers['last-modified']).toBeDefined();
    }
  });

  test('Range 206, unsatisfiable 416, If-None-Match 304, ?metadata=true', async () => {
    const url = `${B}files/objects/${uuid}/`;
    const part = await send(t, 'GET', url, { host: HOST, token: tok, headers: { range: 'bytes=2-5' } });
    expect(part.status).toBe(206);
    expect(part.raw.toString()).toBe('2345');
    expect(part.headers['content-range']).toBe('bytes 2-5/10');
    const suffix = await send(t, 'GET', url, { host: HOST, token: tok, headers: { range: 'bytes=-3' } });
    expect(suffix.raw.toString()).toBe('789');
    const bad = await send(t, 'GET', url, { host: HOST, token: tok, headers: { range: 'bytes=50-60' } });
    expect(bad.status).toBe(416);
    expect(bad.headers['content-range']).toBe('bytes */10');
    const full = await send(t, 'GET', url, { host: HOST, token: tok });
    const cached = await send(t, 'GET', url, { host: HOST, token: tok, headers: { 'if-none-match': String(full.headers.etag) } });
    expect(cached.status).toBe(304);
    const meta = await send(t, 'GET', `${url}?metadata=true`, { host: HOST, token: tok });
    expect(meta.status).toBe(200);
    expect(meta.body.data).toMatchObject({ uuid, size: 10, file_path: 'dl/naïve résumé.txt' });
  });

  test('missing object: 404 {error, detail}', async () => {
    const r = await send(t, 'GET', `${B}files/objects/nothing/here.txt`, { host: HOST, token: tok });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
  });
});

describe('bucket deletion', () => {
  test('removes objects, metadata and files, leaving nothing behind', async () => {
    expect((await call('POST', B, { name: 'Temp', slug: 'temp' })).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const r = await send(t, 'PUT', `${B}temp/objects/f${i}.txt`, {
        host: HOST,
        token: tok,
        headers: { 'content-type': 'text/plain' },
        payload: `file ${i}`,
      });
      expect(r.status).toBe(201);
    }
    const bucketUuid = (await t.platform.pool.query(`SELECT uuid FROM storage_buckets WHERE slug = 'temp'`)).rows[0].uuid;
    expect(filesUnder(path.join(objectsDir(), bucketUuid))).toHaveLength(5);
    const del = await call('DELETE', B + 'temp/');
    expect(del.status).toBe(200);
    await cleanupIdle();
    expect(fs.existsSync(path.join(objectsDir(), bucketUuid))).toBe(false);
    const rows = await t.platform.pool.query(
      `SELECT count(*)::int AS n FROM storage_objects o JOIN storage_buckets b ON b.id = o.bucket_id WHERE b.slug = 'temp'`,
    );
    expect(rows.rows[0].n).toBe(0);
    expect((await t.platform.pool.query('SELECT count(*)::int AS n FROM storage_cleanup')).rows[0].n).toBe(0);
    expect((await call('GET', B + 'temp/')).status).toBe(404);
  });
});
