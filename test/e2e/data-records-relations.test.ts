// Record writes and the database's guarantees: foreign keys (400 on a missing reference, every
// onDelete action, 403 for RESTRICT), record hooks after commit (not on rollback), the jsonb
// provider, and isolation of one site's records from another's.
import type { RecordEvent } from '../../subgraphs/core/hooks.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'shop.relations.test';
const OTHER = 'other.relations.test';
let t: TestApp;
let token: string;
let otherTok: string;
let events: RecordEvent[][] = [];
let committedSeen: number[] = [];

const as = (tok = token, host = HOST) => ({ token: tok, host });
const DATA = (name: string) => `/api/apps/web/datatables/${name}/data/`;
const post = (name: string, body: unknown, q = '') => t.call('POST', DATA(name) + q, { ...as(), body });
const del = (url: string) => t.call('DELETE', url, as());
const rows = async (sql: string) => (await t.platform.pool.query(sql)).rows;

const field = (name: string, type: string, extra: Record<string, unknown> = {}) => ({ name, type, ...extra });
const child = (name: string, onDelete: string, extra: Record<string, unknown> = {}) => ({
  name,
  schema: {
    fields: [field('id', 'integer'), field('parent', 'integer', extra)],
    primaryKey: 'id',
    foreignKeys: [{ fields: 'parent', reference: { resource: 'parents', fields: 'id' }, 'x-actions': { onDelete } }],
  },
});

beforeAll(async () => {
  t = await startTestApp();
  const [owner, other] = await Promise.all([t.createUser(), t.createUser()]);
  token = t.tokenFor(owner);
  otherTok = t.tokenFor(other);
  const org = await insertOrg(t.platform, 'acme-rel', owner.id);
  const site = await insertSite(t.platform, org.id, 'relshop', HOST);
  await insertApp(t.platform, site.id, 'web');
  const org2 = await insertOrg(t.platform, 'other-rel', other.id);
  const site2 = await insertSite(t.platform, org2.id, 'relother', OTHER);
  await insertApp(t.platform, site2.id, 'web');
  const res = await t.call('POST', '/api/apps/web/datatables/create_schema/', {
    ...as(),
    body: {
      resources: [
        child('c_restrict', 'RESTRICT'),
        child('c_cascade', 'CASCADE'),
        child('c_null', 'SET NULL'),
        child('c_default', 'SET DEFAULT', { default: 1 }),
        child('c_noaction', 'NO ACTION'),
        { name: 'parents', schema: { fields: [field('id', 'integer'), field('name', 'string')], primaryKey: 'id' } },
        {
          name: 'notes',
          provider: 'jsonb',
          schema: {
            fields: [
              field('title', 'string', { constraints: { required: true, maxLength: 20 } }),
              field('code', 'string', { constraints: { unique: true } }),
              field('n', 'integer', { default: 5 }),
              field('at', 'datetime'),
              field('is_deleted', 'boolean'),
              field('created_at', 'datetime'),
            ],
          },
        },
      ],
    },
  });
  expect(res.status).toBe(201);
  // Same table name on another site: a separate table nobody here can reach.
  const r2 = await t.call('POST', '/api/apps/web/datatables/create_schema/', {
    ...as(otherTok, OTHER),
    body: { resources: [{ name: 'parents', schema: { fields: [field('id', 'integer'), field('name', 'string')], primaryKey: 'id' } }] },
  });
  expect(r2.status).toBe(201);
  t.platform.hooks.on('recordsCommitted', async (list, ctx) => {
    // After commit: a fresh connection sees the rows the events describe.
    const ids = list.filter((e) => e.type === 'RECORD_CREATE' && e.datatable === 'parents').map((e) => Number(e.record_id));
    if (ids.length) {
      const { rows: found } = await ctx.platform.pool.query(`SELECT id FROM relshop."web_parents" WHERE id = ANY($1)`, [ids]);
      committedSeen.push(found.length);
    }
    events.push([...list]);
  });
});
afterAll(() => t.close());
beforeEach(() => {
  events = [];
  committedSeen = [];
});

describe('foreign keys', () => {
  test('a missing referenced record: 400 {error, detail, field}', async () => {
    const res = await post('c_restrict', { id: 1, parent: 999 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(String), field: 'parent' });
  });

  test('onDelete: RESTRICT 403, CASCADE, SET NULL, SET DEFAULT, NO ACTION', async () => {
    expect(
      (
        await post('parents', [
          { id: 1, name: 'default' },
          { id: 2, name: 'p2' },
          { id: 3, name: 'p3' },
        ])
      ).status,
    ).toBe(201);
    for (const c of ['c_restrict', 'c_cascade', 'c_null', 'c_default', 'c_noaction'])
      expect((await post(c, { id: 10, parent: 2 })).status).toBe(201);
    const blocked = await del(DATA('parents') + '2/');
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
    await del(DATA('c_restrict') + '10/');
    const noAction = await del(DATA('parents') + '2/');
    expect(noAction.status).toBe(403); // NO ACTION: checked at the end of the statement, still blocked
    await del(DATA('c_noaction') + '10/');
    expect((await del(DATA('parents') + '2/')).status).toBe(204);
    expect(await rows('SELECT count(*)::int AS n FROM relshop."web_c_cascade"')).toEqual([{ n: 0 }]);
    expect(await rows('SELECT parent FROM relshop."web_c_null"')).toEqual([{ parent: null }]);
    expect(await rows('SELECT parent FROM relshop."web_c_default"')).toEqual([{ parent: 1 }]);
  });
});

describe('record hooks', () => {
  test('RECORD_CREATE per record, after commit, with app_slug, datatable, record_id, data', async () => {
    await post('parents', [
      { id: 20, name: 'a' },
      { id: 21, name: 'b' },
    ]);
    expect(events).toHaveLength(1);
    expect(events[0]).toEqual([
      { type: 'RECORD_CREATE', app_slug: 'web', datatable: 'parents', record_id: '20', data: { id: 20, name: 'a' } },
      { type: 'RECORD_CREATE', app_slug: 'web', datatable: 'parents', record_id: '21', data: { id: 21, name: 'b' } },
    ]);
    expect(committedSeen).toEqual([2]);
  });

  test('RECORD_UPDATE with previous; RECORD_DELETE with hard', async () => {
    await t.call('PATCH', DATA('parents') + '20/', { ...as(), body: { name: 'a2' } });
    expect(events[0]).toEqual([
      {
        type: 'RECORD_UPDATE',
        app_slug: 'web',
        datatable: 'parents',
        record_id: '20',
        data: { id: 20, name: 'a2' },
        previous: { id: 20, name: 'a' },
      },
    ]);
    await del(DATA('parents') + '20/');
    expect(events[1]).toEqual([
      { type: 'RECORD_DELETE', app_slug: 'web', datatable: 'parents', record_id: '20', data: { id: 20, name: 'a2' }, hard: true },
    ]);
  });

  test('a failing hook is logged and never fails the write', async () => {
    const off = t.platform.hooks.on('recordsCommitted', () => {
      throw new Error('hook exploded');
    });
    try {
      expect((await post('parents', { id: 40, name: 'hooked' })).status).toBe(201);
      expect(events).toHaveLength(1);
      expect(t.logs.some((l) => l.includes('hook failed') && l.includes('recordsCommitted'))).toBe(true);
    } finally {
      off();
    }
  });

  test('not fired when the transaction rolls back', async () => {
    const res = await post('parents', [
      { id: 30, name: 'x' },
      { id: 30, name: 'dup' },
    ]);
    expect(res.status).toBe(409);
    const bad = await t.call('PATCH', DATA('parents'), {
      ...as(),
      body: [
        { id: 21, name: 'ok' },
        { id: 404404, name: 'missing' },
      ],
    });
    expect(bad.status).toBe(404);
    expect(events).toEqual([]);
    expect(await rows('SELECT name FROM relshop."web_parents" WHERE id = 21')).toEqual([{ name: 'b' }]);
  });
});

describe('jsonb provider', () => {
  test('create, validate, unique, patch, soft delete, upsert', async () => {
    const res = await post('notes', { title: 'n1', code: 'c1', at: '2026-01-02T04:04:05+01:00' });
    expect(res.status).toBe(201);
    const n1 = res.body.data;
    expect(n1).toMatchObject({ title: 'n1', code: 'c1', n: 5, is_deleted: false, at: '2026-01-02T03:04:05.000Z' });
    expect(n1.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await post('notes', { code: 'c2' })).body.details).toEqual({ title: ['This field is required.'] });
    const dup = await post('notes', { title: 'n2', code: 'c1' });
    expect(dup.status).toBe(409);
    expect(dup.body.field).toBe('code');
    const patched = await t.call('PATCH', DATA('notes') + n1.id + '/', { ...as(), body: { n: 6 } });
    expect(patched.body.data).toMatchObject({ id: n1.id, title: 'n1', n: 6 });
    const up = await post('notes', { code: 'c1', title: 'n1b' }, 'upsert/?unique_fields=code');
    expect([up.status, up.body.created, up.body.data.id]).toEqual([200, false, n1.id]);
    expect((await del(DATA('notes') + n1.id + '/')).status).toBe(204);
    const [stored] = await rows(
      `SELECT data FROM relshop."_jsonb_app_${(await rows(`SELECT id FROM apps WHERE slug = 'web' ORDER BY id LIMIT 1`))[0].id}" WHERE record_id = '${n1.id}'`,
    );
    expect(stored.data.is_deleted).toBe(true);
    const many = await post('notes', [{ title: 'm1' }, { title: 'm2' }]);
    expect(many.body.data).toHaveLength(2);
    const gone = await del(
      DATA('notes') + '?filter=' + encodeURIComponent(JSON.stringify({ title__in: ['m1', 'm2'] })) + '&hard_delete=true',
    );
    expect(gone.body.deleted).toBe(2);
  });
});

describe('tenant isolation', () => {
  test("another site's caller cannot write this site's tables, whatever the names", async () => {
    const before = await rows('SELECT count(*)::int AS n FROM relshop."web_parents"');
    const res = await t.call('POST', DATA('parents'), { ...as(otherTok, OTHER), body: { id: 500, name: 'theirs' } });
    expect(res.status).toBe(201);
    expect(await rows('SELECT count(*)::int AS n FROM relshop."web_parents"')).toEqual(before);
    expect(await rows('SELECT name FROM relother."web_parents" WHERE id = 500')).toEqual([{ name: 'theirs' }]);
    // The other site's token on this host: no access to this site at all (403 without view_site).
    expect((await t.call('POST', DATA('parents'), { ...as(otherTok, HOST), body: { id: 501, name: 'x' } })).status).toBe(403);
    expect((await t.call('DELETE', DATA('parents') + '21/', as(otherTok, HOST))).status).toBe(403);
    expect((await t.call('DELETE', DATA('parents') + '21/', as(otherTok, OTHER))).status).toBe(404);
    expect(await rows('SELECT count(*)::int AS n FROM relshop."web_parents" WHERE id = 21')).toEqual([{ n: 1 }]);
  });
});
