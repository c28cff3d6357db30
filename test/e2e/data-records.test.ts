// Record writes through REST (seed document 3 "Data service: records", docs/data-service.md
// "Records"): every write route with its envelope, validation and constraint errors, all or
// nothing bulk writes, upsert, soft delete flows.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'shop.records.test';
let t: TestApp;
let token: string;
let readerTok: string;

const as = (tok = token) => ({ token: tok, host: HOST });
const DATA = (name: string) => `/api/apps/web/datatables/${name}/data/`;
const post = (name: string, body: unknown, q = '') => t.call('POST', DATA(name) + q, { ...as(), body });
const patch = (url: string, body: unknown) => t.call('PATCH', url, { ...as(), body });
const del = (url: string) => t.call('DELETE', url, as());
const count = async (table: string, where = 'TRUE') =>
  Number((await t.platform.pool.query(`SELECT count(*) FROM shop."web_${table}" WHERE ${where}`)).rows[0].count);

beforeAll(async () => {
  t = await startTestApp();
  const [owner, reader] = await Promise.all([t.createUser(), t.createUser()]);
  token = t.tokenFor(owner);
  readerTok = t.tokenFor(reader);
  const org = await insertOrg(t.platform, 'acme-records', owner.id);
  const site = await insertSite(t.platform, org.id, 'shop', HOST);
  await insertApp(t.platform, site.id, 'web');
  await t.platform.pool.query(
    `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{data:read}')`,
    [org.id, reader.id],
  );
  const res = await t.call('POST', '/api/apps/web/datatables/create_schema/', {
    ...as(),
    body: {
      resources: [
        {
          name: 'posts',
          schema: {
            fields: [
              { name: 'title', type: 'string', constraints: { required: true, maxLength: 50 } },
              { name: 'slug', type: 'string', constraints: { unique: true, pattern: '^[a-z0-9-]+$' } },
              { name: 'views', type: 'integer', default: 0, constraints: { minimum: 0 } },
              { name: 'status', type: 'string', default: 'draft', constraints: { enum: ['draft', 'live'] } },
              { name: 'score', type: 'number' },
              { name: 'day', type: 'date' },
              { name: 'meta', type: 'object' },
              { name: 'tags', type: 'array' },
              { name: 'is_deleted', type: 'boolean' },
              { name: 'created_at', type: 'datetime' },
              { name: 'updated_at', type: 'datetime' },
            ],
          },
        },
        {
          name: 'pairs',
          schema: {
            fields: [
              { name: 'a', type: 'integer' },
              { name: 'b', type: 'string' },
              { name: 'v', type: 'integer' },
            ],
            primaryKey: ['a', 'b'],
          },
        },
        {
          name: 'counters',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'n', type: 'integer' },
            ],
            primaryKey: 'id',
          },
        },
      ],
    },
  });
  expect(res.status).toBe(201);
});
afterAll(() => t.close());

describe('create', () => {
  test('one record: 201 {status, message, data} with generated id, defaults and times', async () => {
    const res = await post('posts', {
      title: 'Hello',
      slug: 'hello',
      meta: { a: [1] },
      tags: ['x', 'y'],
      day: '2026-02-28',
      score: 1.5,
      created_at: '1999-01-01T00:00:00Z',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: 'success', message: expect.any(String), data: expect.any(Object) });
    const r = res.body.data;
    expect(r).toMatchObject({
      title: 'Hello',
      slug: 'hello',
      views: 0,
      status: 'draft',
      is_deleted: false,
      meta: { a: [1] },
      tags: ['x', 'y'],
      day: '2026-02-28',
      score: 1.5,
    });
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(r.created_at).not.toBe('1999-01-01T00:00:00.000Z');
    expect(Object.keys(r)).not.toContain('search_vector');
  });

  test('many: 201 with data in order; identity keys generated', async () => {
    const res = await post('counters', [{ n: 1 }, { n: 2 }, { id: 100, n: 3 }]);
    expect(res.status).toBe(201);
    expect(res.body.data.map((r: { n: number }) => r.n)).toEqual([1, 2, 3]);
    expect(res.body.data[2].id).toBe(100);
    expect(typeof res.body.data[0].id).toBe('number');
  });

  test('bulk beyond one batch: 2,500 records with mixed field sets, in body order', async () => {
    const body = Array.from({ length: 2500 }, (_, i) =>
      i % 3 === 0 ? { title: `bulk-${i}` } : { title: `bulk-${i}`, views: i, status: 'live' },
    );
    const res = await post('posts', body);
    expect(res.status).toBe(201);
    expect(res.body.data.map((r: { title: string }) => r.title)).toEqual(body.map((b) => b.title));
    expect(res.body.data[0]).toMatchObject({ views: 0, status: 'draft' });
    expect(res.body.data[1]).toMatchObject({ views: 1, status: 'live' });
    expect(await count('posts', "title LIKE 'bulk-%'")).toBe(2500);
    expect(
      (
        await post(
          'posts',
          Array.from({ length: 10_001 }, () => ({ title: 'x' })),
        )
      ).status,
    ).toBe(400);
    expect((await post('posts', [])).status).toBe(400);
  });

  test('validation: 400 {error, details} naming every field; unknown fields named', async () => {
    const res = await post('posts', { title: 'x'.repeat(51), views: -1, status: 'gone', nope: 1, slug: 'Bad Slug' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.any(String));
    expect(Object.keys(res.body.details).sort()).toEqual(['nope', 'slug', 'status', 'title', 'views']);
    expect((await post('posts', { slug: 'no-title' })).body.details).toEqual({ title: ['This field is required.'] });
    expect((await post('posts', 'text')).status).toBe(400);
  });

  test('array all or nothing: an invalid item → 400 [i].field, nothing written; a DB conflict rolls back the batch', async () => {
    const before = await count('posts');
    const bad = await post('posts', [{ title: 'ok1' }, { title: 5 }, { title: 'ok3' }]);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.details)).toEqual(['[1].title']);
    const dup = await post('posts', [
      { title: 'a', slug: 'same' },
      { title: 'b', slug: 'same' },
    ]);
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: expect.any(String), detail: expect.any(String), field: 'slug' });
    expect(await count('posts')).toBe(before);
  });

  test('unique: 409 {error, detail, field}', async () => {
    expect((await post('posts', { title: 'u1', slug: 'unique-one' })).status).toBe(201);
    const res = await post('posts', { title: 'u2', slug: 'unique-one' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(String), field: 'slug' });
  });

  test('permissions: data:read only → 403; anonymous → 401; unknown table → 404 {error, detail}', async () => {
    expect((await t.call('POST', DATA('posts'), { ...as(readerTok), body: { title: 'x' } })).status).toBe(403);
    expect((await t.call('POST', DATA('posts'), { host: HOST, body: { title: 'x' } })).status).toBe(401);
    const missing = await post('nope', { title: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
  });
});

describe('upsert', () => {
  test('by unique field: 201 created true, then 200 created false', async () => {
    const a = await post('posts', { title: 'Up', slug: 'upsert-me' }, 'upsert/?unique_fields=slug');
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ status: 'success', created: true, data: { title: 'Up', slug: 'upsert-me' } });
    const b = await post('posts', { title: 'Up 2', slug: 'upsert-me', views: 7 }, 'upsert/?unique_fields=slug');
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ created: false, data: { id: a.body.data.id, title: 'Up 2', views: 7 } });
  });

  test('array: created per item; by composite primary key', async () => {
    await post('pairs', { a: 1, b: 'x', v: 1 });
    const res = await post(
      'pairs',
      [
        { a: 1, b: 'x', v: 2 },
        { a: 2, b: 'y', v: 3 },
      ],
      'upsert/?unique_fields=a,b',
    );
    expect(res.status).toBe(201);
    expect(res.body.created).toEqual([false, true]);
    expect(res.body.data.map((r: { v: number }) => r.v)).toEqual([2, 3]);
    const again = await post('pairs', [{ a: 2, b: 'y', v: 4 }], 'upsert/?unique_fields=a,b');
    expect(again.status).toBe(200);
  });

  test('bad unique_fields and missing values: 400', async () => {
    expect((await post('posts', { title: 'x' }, 'upsert/?unique_fields=title')).status).toBe(400);
    expect((await post('posts', { title: 'x' }, 'upsert/?unique_fields=nope')).status).toBe(400);
    expect((await post('posts', { title: 'x' }, 'upsert/')).status).toBe(400);
    const res = await post('posts', { title: 'x' }, 'upsert/?unique_fields=slug');
    expect(res.body.details).toEqual({ slug: [expect.any(String)] });
    const create = await post('posts', { slug: 'needs-title' }, 'upsert/?unique_fields=slug');
    expect(create.body.details).toEqual({ title: ['This field is required.'] });
  });
});

describe('patch', () => {
  test('one: 200 {status, message, data}; updated_at moves; 404 unknown or malformed id', async () => {
    const { body } = await post('posts', { title: 'Patch me', slug: 'patch-me' });
    const res = await patch(DATA('posts') + body.data.id + '/', { views: 3, created_at: 'ignored' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'success', data: { views: 3, title: 'Patch me', created_at: body.data.created_at } });
    expect(res.body.data.updated_at >= body.data.updated_at).toBe(true);
    expect((await patch(DATA('posts') + '00000000-0000-4000-8000-000000000000/', { views: 1 })).status).toBe(404);
    const bad = await patch(DATA('posts') + 'not-a-uuid/', { views: 1 });
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
    expect((await patch(DATA('posts') + body.data.id + '/', { views: 'x' })).status).toBe(400);
  });

  test('array: each with its key, all or nothing', async () => {
    const { body } = await post('posts', [{ title: 'p1' }, { title: 'p2' }]);
    const [a, b] = body.data;
    const res = await patch(DATA('posts'), [
      { id: a.id, views: 10 },
      { id: b.id, views: 20 },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { views: number }) => r.views)).toEqual([10, 20]);
    const fail = await patch(DATA('posts'), [
      { id: a.id, views: 11 },
      { id: '00000000-0000-4000-8000-000000000000', views: 1 },
    ]);
    expect(fail.status).toBe(404);
    expect(
      (await t.call('GET', `${DATA('posts')}${a.id}/`, as())).body.data?.views ?? (await count('posts', `id = '${a.id}' AND views = 10`)),
    ).toBeTruthy();
    expect(await count('posts', `id = '${a.id}' AND views = 10`)).toBe(1);
    const nokey = await patch(DATA('posts'), [{ views: 1 }]);
    expect(nokey.status).toBe(400);
    expect(nokey.body.details).toEqual({ '[0].id': [expect.any(String)] });
  });

  test('object + filters: {data, total}; no filter → 400; bad filter → 400', async () => {
    await post('posts', [
      { title: 'bulk', status: 'draft', views: 1 },
      { title: 'bulk', status: 'draft', views: 2 },
    ]);
    const res = await patch(DATA('posts') + '?title=bulk', { status: 'live' });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.data.every((r: { status: string }) => r.status === 'live')).toBe(true);
    const viaJson = await patch(DATA('posts') + '?filter=' + encodeURIComponent(JSON.stringify({ title: 'bulk', views__gte: 2 })), {
      views: 5,
    });
    expect(viaJson.body.total).toBe(1);
    expect((await patch(DATA('posts'), { status: 'live' })).status).toBe(400);
    expect((await patch(DATA('posts') + '?nofield=1', { status: 'live' })).status).toBe(400);
    const keyed = await patch(DATA('posts') + '?title=bulk', { id: '00000000-0000-4000-8000-000000000000' });
    expect([keyed.status, Object.keys(keyed.body.details)]).toEqual([400, ['id']]);
  });
});

describe('delete and soft delete', () => {
  test('one: 204 soft on a table with is_deleted; invisible after; restorable; hard_delete removes', async () => {
    const { body } = await post('posts', { title: 'to delete' });
    const id = body.data.id;
    const res = await del(DATA('posts') + id + '/');
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await count('posts', `id = '${id}' AND is_deleted`)).toBe(1);
    expect((await del(DATA('posts') + id + '/')).status).toBe(404);
    expect((await patch(DATA('posts') + id + '/', { views: 1 })).status).toBe(404);
    const restored = await patch(DATA('posts') + id + '/?include_deleted=true', { is_deleted: false });
    expect(restored.body.data.is_deleted).toBe(false);
    await del(DATA('posts') + id + '/');
    expect((await del(DATA('posts') + id + '/?hard_delete=true')).status).toBe(204);
    expect(await count('posts', `id = '${id}'`)).toBe(0);
  });

  test('without is_deleted every delete is hard', async () => {
    const { body } = await post('counters', { n: 9 });
    expect((await del(DATA('counters') + body.data.id + '/')).status).toBe(204);
    expect(await count('counters', `id = ${body.data.id}`)).toBe(0);
  });

  test('by ids: {status, message, deleted, ids} with the ids actually deleted', async () => {
    const { body } = await post('posts', [{ title: 'd1' }, { title: 'd2' }]);
    const ids = body.data.map((r: { id: string }) => r.id);
    const res = await del(DATA('posts') + `?ids=${ids.join(',')},00000000-0000-4000-8000-000000000000,junk`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', message: expect.any(String), deleted: 2, ids: expect.arrayContaining(ids) });
    const only = await del(DATA('posts') + `?ids=${ids.join(',')}&only_deleted=true&hard_delete=true`);
    expect(only.body.deleted).toBe(2);
    expect(await count('posts', `id = ANY('{${ids.join(',')}}')`)).toBe(0);
  });

  test('by filter JSON: {deleted}; malformed filter 400; neither ids nor filter 400', async () => {
    await post('posts', [
      { title: 'f', views: 1 },
      { title: 'f', views: 2 },
      { title: 'f', views: 3 },
    ]);
    const res = await del(DATA('posts') + '?filter=' + encodeURIComponent(JSON.stringify({ title: 'f', views__gte: 2 })));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', message: expect.any(String), deleted: 2 });
    expect(await count('posts', `title = 'f' AND NOT is_deleted`)).toBe(1);
    expect((await del(DATA('posts') + '?filter=not-json')).status).toBe(400);
    expect((await del(DATA('posts') + '?filter=' + encodeURIComponent('{"bogus__gte": 1}'))).status).toBe(400);
    expect((await del(DATA('posts'))).status).toBe(400);
  });

  test('composite keys in paths: values joined by a comma', async () => {
    await post('pairs', { a: 7, b: 'z,1', v: 1 });
    const id = `7,${encodeURIComponent(encodeURIComponent('z,1'))}`;
    expect((await patch(DATA('pairs') + id + '/', { v: 2 })).body.data).toEqual({ a: 7, b: 'z,1', v: 2 });
    expect((await del(DATA('pairs') + id + '/')).status).toBe(204);
  });
});
