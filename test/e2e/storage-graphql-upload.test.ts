// uploadObject over GraphQL (issue 13 item 8): a GraphQL multipart request through the gateway,
// in-process and with the storage subgraph served over HTTP (the gateway forwards the files as
// multipart). The file is streamed into the same service function as the REST raw upload: size
// limit, MIME sniffing and permissions as for REST; refused without the preflight header.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { multipart, PNG, send, type RawCall } from '../support/storage.js';
import type { SubgraphServer } from '../../subgraphs/serve.js';
import { uploadForwarding } from '../../gateway/graphql/upload-source.js';
import { startPlatformIn, type Mode } from './graphql-fixtures.js';

const HOST = 'upload.gql-storage.test';
const B = '/api/apps/shop/storage/buckets/';
const UPLOAD = `mutation Up($file: Upload!, $path: String, $metadata: JSON) {
  uploadObject(app: "shop", bucket: "media", file: $file, path: $path, metadata: $metadata) {
    id uuid filename filePath size mimetype metadata visibility isDocEditable url createdAt updatedAt createdBy modifiedBy
  }
}`;

interface FilePart {
  filename: string;
  content: Buffer | string;
  type?: string;
}

describe.each<Mode>(['in-process', 'distributed'])('uploadObject (%s)', (mode) => {
  let t: TestApp;
  let servers: SubgraphServer[];
  let close: () => Promise<void>;
  let tok: string;
  let readerTok: string;

  const objectsDir = () => path.join(t.platform.config.dataDir, 'objects');
  const storedFiles = (): string[] =>
    fs.existsSync(objectsDir())
      ? fs
          .readdirSync(objectsDir(), { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => path.join(e.parentPath, e.name))
      : [];

  /** A GraphQL multipart request (operations, map, then the file), as apollo-upload-client sends it. */
  const gqlUpload = (
    file: FilePart,
    opts: { token?: string; query?: string; variables?: Record<string, unknown>; preflight?: boolean } = {},
  ): Promise<RawCall> => {
    const { body, contentType } = multipart([
      { name: 'operations', value: JSON.stringify({ query: opts.query ?? UPLOAD, variables: { file: null, ...opts.variables } }) },
      { name: 'map', value: JSON.stringify({ 0: ['variables.file'] }) },
      { name: '0', filename: file.filename, content: file.content, type: file.type },
    ]);
    return send(t, 'POST', '/graphql', {
      host: HOST,
      token: opts.token ?? tok,
      headers: { 'content-type': contentType, ...(opts.preflight === false ? {} : { 'apollo-require-preflight': 'true' }) },
      payload: body,
    });
  };
  const objectCount = async (bucket: string) =>
    (await t.call('GET', `${B}${bucket}/`, { host: HOST, token: tok })).body.data.object_count as number;

  beforeAll(async () => {
    ({ t, servers, close } = await startPlatformIn(mode));
    const owner = await t.createUser();
    tok = t.tokenFor(owner);
    const reader = await t.createUser();
    readerTok = t.tokenFor(reader);
    const org = await insertOrg(t.platform, `org-up-${mode}`, owner.id);
    const site = await insertSite(t.platform, org.id, `site-up-${mode}`, HOST);
    await insertApp(t.platform, site.id, 'shop');
    // A member who sees the site and reads storage, but may not create objects.
    await t.platform.pool.query(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`, [
      org.id,
      reader.id,
      ['view_site', 'storage:read', 'storage:update', 'storage:delete'],
    ]);
    for (const b of [
      { name: 'Media', slug: 'media', file_size_limit: 1000 },
      { name: 'Tiny', slug: 'tiny', file_size_limit: 10 },
      { name: 'Big', slug: 'big', file_size_limit: 8 * 1024 * 1024 },
      { name: 'Images', slug: 'images', allowed_mime_types: ['image/*'] },
    ]) {
      const r = await t.call('POST', B, { host: HOST, token: tok, body: b });
      expect(r.status).toBe(201);
    }
    if (mode === 'distributed') expect(servers.some((s) => s.name === 'storage')).toBe(true);
  }, 120_000);
  afterAll(() => close?.());

  test('uploads a file; the object is the REST upload object, the content the bytes sent', async () => {
    const forwarded = uploadForwarding.requests;
    const res = await gqlUpload(
      { filename: 'hello.txt', content: 'hello over graphql', type: 'text/plain' },
      { variables: { path: 'docs/hello.txt', metadata: { k: 'v' } } },
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const o = res.body.data.uploadObject;
    expect(o).toMatchObject({ filePath: 'docs/hello.txt', filename: 'hello.txt', size: 18, mimetype: 'text/plain', metadata: { k: 'v' } });

    // The REST object of the same row, field by field.
    const rest = await t.call('GET', `${B}media/objects/${o.uuid}/?metadata=true`, { host: HOST, token: tok });
    expect(rest.status).toBe(200);
    const v = rest.body.data;
    expect(o).toEqual({
      id: String(v.id),
      uuid: v.uuid,
      filename: v.filename,
      filePath: v.file_path,
      size: v.size,
      mimetype: v.mimetype,
      metadata: v.metadata,
      visibility: v.visibility,
      isDocEditable: v.is_doc_editable,
      url: v.file_url,
      createdAt: new Date(v.created_at).toISOString(),
      updatedAt: new Date(v.updated_at).toISOString(),
      createdBy: v.created_by,
      modifiedBy: v.modified_by,
    });
    const down = await send(t, 'GET', `${B}media/objects/${o.uuid}/`, { host: HOST, token: tok });
    expect(down.raw.toString()).toBe('hello over graphql');
    // Distributed: the gateway sent the file on to the storage subgraph as multipart.
    expect(uploadForwarding.requests - forwarded).toBe(mode === 'distributed' ? 1 : 0);

    // The same path again: updated in place, same uuid (as the REST upsert).
    const again = await gqlUpload(
      { filename: 'hello.txt', content: 'second version', type: 'text/plain' },
      { variables: { path: 'docs/hello.txt' } },
    );
    expect(again.body.data.uploadObject).toMatchObject({ uuid: o.uuid, size: 14 });
  });

  test('the type is detected from the content, not the declared one; path defaults to the filename', async () => {
    const res = await gqlUpload({ filename: 'pixel.bin', content: PNG, type: 'text/plain' });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.uploadObject).toMatchObject({ filePath: 'pixel.bin', mimetype: 'image/png', size: PNG.length });
  });

  test("over the bucket's limit: file_too_large and nothing stored", async () => {
    const before = storedFiles().length;
    const res = await gqlUpload(
      { filename: 'big.txt', content: 'x'.repeat(500), type: 'text/plain' },
      { query: UPLOAD.replace('bucket: "media"', 'bucket: "tiny"') },
    );
    expect(res.body.errors?.[0]?.extensions?.code).toBe('file_too_large');
    expect(res.body.data?.uploadObject ?? null).toBeNull();
    expect(await objectCount('tiny')).toBe(0);
    expect(storedFiles().length).toBe(before);
  });

  test('a file of several MB streams through whole (many chunks, forwarded in distributed mode)', async () => {
    const big = crypto.randomBytes(3 * 1024 * 1024);
    const res = await gqlUpload(
      { filename: 'big.bin', content: big, type: 'application/octet-stream' },
      { query: UPLOAD.replace('bucket: "media"', 'bucket: "big"') },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.uploadObject.size).toBe(big.length);
    const down = await send(t, 'GET', `${B}big/objects/${res.body.data.uploadObject.uuid}/`, { host: HOST, token: tok });
    expect(crypto.createHash('sha256').update(down.raw).digest('hex')).toBe(crypto.createHash('sha256').update(big).digest('hex'));
  });

  test('a type the bucket does not allow: mime_type_not_allowed, nothing stored; the detected type decides', async () => {
    const images = UPLOAD.replace('bucket: "media"', 'bucket: "images"');
    const res = await gqlUpload({ filename: 'notes.txt', content: 'plain text, not an image', type: 'text/plain' }, { query: images });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('mime_type_not_allowed');
    expect(await objectCount('images')).toBe(0);
    // A PNG declared as text: its signature makes it an image, which the bucket takes.
    const ok = await gqlUpload({ filename: 'real.png', content: PNG, type: 'text/plain' }, { query: images });
    expect(ok.body.data.uploadObject.mimetype).toBe('image/png');
    expect(await objectCount('images')).toBe(1);
  });

  test('without the preflight header: refused before anything is read, nothing stored', async () => {
    const before = await objectCount('media');
    const res = await gqlUpload({ filename: 'csrf.txt', content: 'forged', type: 'text/plain' }, { preflight: false });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('csrf_prevention');
    expect(await objectCount('media')).toBe(before);
  });

  test('without storage:create: refused, nothing stored', async () => {
    const before = storedFiles().length;
    const count = await objectCount('media');
    const res = await gqlUpload({ filename: 'nope.txt', content: 'not allowed', type: 'text/plain' }, { token: readerTok });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('permission_denied');
    expect(await objectCount('media')).toBe(count);
    expect(storedFiles().length).toBe(before);
  });

  test('a malformed multipart request: 400 parse_error, never a 500', async () => {
    const bad = async (parts: Parameters<typeof multipart>[0]) => {
      const { body, contentType } = multipart(parts);
      return send(t, 'POST', '/graphql', {
        host: HOST,
        token: tok,
        headers: { 'content-type': contentType, 'apollo-require-preflight': 'true' },
        payload: body,
      });
    };
    const notJson = await bad([{ name: 'operations', value: '{not json' }]);
    expect(notJson.status).toBe(400);
    expect(notJson.body.errors[0].extensions.code).toBe('parse_error');
    const noMap = await bad([{ name: 'operations', value: JSON.stringify({ query: UPLOAD, variables: { file: null } }) }]);
    expect(noMap.status).toBe(400);
    expect(noMap.body.errors[0].extensions.code).toBe('parse_error');
    // A map naming a file that never comes: the operation fails, the request completes.
    const missing = await bad([
      { name: 'operations', value: JSON.stringify({ query: UPLOAD, variables: { file: null } }) },
      { name: 'map', value: JSON.stringify({ 0: ['variables.file'] }) },
    ]);
    expect(missing.status).toBeLessThan(500);
    expect(missing.body.errors?.[0]).toMatchObject({ message: 'The file was not received.', extensions: { code: 'invalid' } });
  });

  test('anonymous: refused as for a site it cannot see (404), nothing stored', async () => {
    const count = await objectCount('media');
    const { body, contentType } = multipart([
      { name: 'operations', value: JSON.stringify({ query: UPLOAD, variables: { file: null } }) },
      { name: 'map', value: JSON.stringify({ 0: ['variables.file'] }) },
      { name: '0', filename: 'anon.txt', content: 'anonymous', type: 'text/plain' },
    ]);
    const res = await send(t, 'POST', '/graphql', {
      host: HOST,
      headers: { 'content-type': contentType, 'apollo-require-preflight': 'true' },
      payload: body,
    });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_found', status: 404 });
    expect(await objectCount('media')).toBe(count);
  });
});
