// Secrets through REST (seed document 2, DECISIONS §9): both tiers, lookup order, access by
// sensitivity, schema validation, encryption at rest, listing, history without values, and
// the resolution function other modules use.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { resolveSecretReference } from '../../subgraphs/secrets/resolve.service.js';
import type { RequestContext } from '../../subgraphs/core/context.js';

const SHOP = 'shop.secrets.test';

let t: TestApp;
let owner: User, reader: User, outsider: User;
let ownerTok: string, readerTok: string, outsiderTok: string;
let site: { id: number; uuid: string };
let web: { id: number; uuid: string };

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const as = (token?: string) => ({ token, host: SHOP });
const post = (body: unknown, token = ownerTok) => t.call('POST', '/api/secrets/', { ...as(token), body });

beforeAll(async () => {
  t = await startTestApp();
  [owner, reader, outsider] = await Promise.all([t.createUser(), t.createUser(), t.createUser()]);
  [ownerTok, readerTok, outsiderTok] = [owner, reader, outsider].map((u) => t.tokenFor(u));
  const org = await insertOrg(t.platform, 'acme', owner.id);
  site = await insertSite(t.platform, org.id, 'shop', SHOP);
  web = await insertApp(t.platform, site.id, 'web');
  await insertOrg(t.platform, 'elsewhere', outsider.id);
  await q(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{secrets:read}')`, [
    org.id,
    reader.id,
  ]);
  const pub = await t.call('POST', '/api/secret-types/', {
    ...as(ownerTok),
    body: {
      type: 'custom',
      name: 'Public Config',
      sensitivity_level: 'public',
      schema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    },
  });
  expect(pub.status).toBe(201);
  for (const name of ['prod', 'staging'])
    expect((await t.call('POST', '/api/tags/', { ...as(ownerTok), body: { name } })).status).toBe(201);
});
afterAll(() => t.close());

describe('secrets', () => {
  test('create at site tier: 201 with the type name, encrypted at rest; duplicate key 409', async () => {
    const res = await post({ secret_type: 'basic-auth', key: 'db', value: { username: 'u', password: 'hunter2-site' }, tags: ['prod'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      key: 'db',
      tags: ['prod'],
      secret_type: expect.any(String),
      value: { username: 'u', password: 'hunter2-site' },
    });
    expect(res.body.secret_type).not.toBe('basic-auth'); // the name, not the slug
    const [row] = await q('SELECT value_plain, ciphertext FROM secrets WHERE key = $1', ['db']);
    expect(row.value_plain).toBeNull();
    expect(row.ciphertext.toString('latin1')).not.toContain('hunter2-site');
    const dup = await post({ secret_type: 'basic-auth', key: 'db', value: { username: 'u', password: 'x' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'Secret already exists.', detail: expect.any(String) });
  });

  test('app tier via both paths; lookup app tier first, then site tier', async () => {
    const a = await t.call('POST', '/api/apps/web/secrets/', {
      ...as(ownerTok),
      body: { key: 'db', type_slug: 'basic-auth', value: { username: 'u', password: 'hunter2-app' } },
    });
    expect(a.status).toBe(201);
    const b = await post({ secret_type: 'json', key: 'only-app', value: { a: 1 }, app: 'web' });
    expect(b.status).toBe(201);
    expect((await t.call('GET', '/api/secrets/db/?app=web', as(ownerTok))).body.value.password).toBe('hunter2-app');
    expect((await t.call('GET', '/api/secrets/db/', as(ownerTok))).body.value.password).toBe('hunter2-site');
    await post({ secret_type: 'json', key: 'site-only', value: { s: 1 } });
    expect((await t.call('GET', '/api/secrets/site-only/?app=web', as(ownerTok))).body.value).toEqual({ s: 1 });
    expect((await t.call('GET', '/api/secrets/only-app/', as(ownerTok))).status).toBe(404);
    expect((await t.call('GET', '/api/secrets/db/?app=nope', as(ownerTok))).status).toBe(404);
  });

  test('tags filter on retrieval: at least one must match, else 404', async () => {
    expect((await t.call('GET', '/api/secrets/db/?tags=staging,prod', as(ownerTok))).status).toBe(200);
    const miss = await t.call('GET', '/api/secrets/db/?tags=staging', as(ownerTok));
    expect(miss.status).toBe(404);
    expect(miss.body).toEqual({ error: 'Secret not found.', detail: expect.any(String) });
  });

  test('access: public readable anonymously, private 401 anonymous, 403 without secrets:read', async () => {
    expect((await post({ secret_type: 'public-config', key: 'cfg', value: { url: 'https://x.test' } })).status).toBe(201);
    const [row] = await q('SELECT value_plain FROM secrets WHERE key = $1', ['cfg']);
    expect(row.value_plain).toEqual({ url: 'https://x.test' });
    const anon = await t.call('GET', '/api/secrets/cfg/', as());
    expect(anon.status).toBe(200);
    expect(anon.body.value).toEqual({ url: 'https://x.test' });
    const priv = await t.call('GET', '/api/secrets/db/', as());
    expect(priv.status).toBe(401);
    expect(priv.body).toEqual({ detail: expect.any(String), code: 'not_authenticated', status_code: 401 });
    expect(JSON.stringify(priv.body)).not.toContain('hunter2');
    const denied = await t.call('GET', '/api/secrets/db/', as(outsiderTok));
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
    expect((await t.call('GET', '/api/secrets/db/', as(readerTok))).status).toBe(200);
    // Reading is not writing.
    expect((await post({ secret_type: 'json', key: 'r', value: {} }, readerTok)).status).toBe(403);
    expect((await t.call('GET', '/api/secrets/', as())).status).toBe(401);
  });

  test('schema validation: 400 {error: "Schema validation failed", detail}', async () => {
    const res = await post({ secret_type: 'basic-auth', key: 'bad', value: { username: 'u' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Schema validation failed', detail: expect.anything() });
    expect((await post({ secret_type: 'no-such-type', key: 'bad', value: {} })).status).toBe(404);
    expect((await post({ secret_type: 'json', key: 'has.dot', value: {} })).status).toBe(400);
    expect((await post({ secret_type: 'json', key: 'bad', value: {}, tags: ['unknown-tag'] })).status).toBe(400);
  });

  test('replace and delete, with history that never holds a value', async () => {
    const put = await t.call('PUT', '/api/secrets/db/', {
      ...as(ownerTok),
      body: { secret_type: 'basic-auth', key: 'db', value: { username: 'u', password: 'hunter3' }, tags: ['staging'] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      key: 'db',
      tags: ['staging'],
      secret_type: expect.any(String),
      value: { username: 'u', password: 'hunter3' },
    });
    const del = await t.call('DELETE', '/api/secrets/db/?app=web', as(ownerTok));
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ message: expect.any(String), detail: expect.any(String) });
    expect((await t.call('GET', '/api/secrets/db/?app=web', as(ownerTok))).body.value.password).toBe('hunter3');

    const h = await t.call('GET', '/api/secrets/db/history/', as(ownerTok));
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ key: 'db', app: null, total_count: 2, limit: 10, offset: 0, has_next: false, has_previous: false });
    expect(h.body.results.map((r: { action: string }) => r.action)).toEqual(['~', '+']);
    expect(h.body.results[0]).toMatchObject({
      user: owner.username,
      key: 'db',
      changes: { tags: { added: ['staging'], removed: ['prod'] } },
    });
    const appH = await t.call('GET', '/api/secrets/db/history/?app=web&limit=1', as(ownerTok));
    expect(appH.body).toMatchObject({ app: 'web', total_count: 2, limit: 1, has_next: true });
    expect(appH.body.results[0].action).toBe('-');
    const all = JSON.stringify(await q('SELECT * FROM secret_history'));
    for (const v of ['hunter2-site', 'hunter2-app', 'hunter3']) expect(all).not.toContain(v);
    expect((await t.call('GET', '/api/secrets/never/history/', as(ownerTok))).status).toBe(404);
  });

  test('list: one tier, filters, ordering, pagination', async () => {
    const res = await t.call('GET', '/api/secrets/?ordering=key', as(ownerTok));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 3, next: null, previous: null });
    expect(res.body.items.map((i: { key: string }) => i.key)).toEqual(['cfg', 'db', 'site-only']);
    expect(res.body.items[1]).toEqual({
      key: 'db',
      tags: ['staging'],
      secret_type: expect.any(String),
      value: { username: 'u', password: 'hunter3' },
    });
    const app = await t.call('GET', '/api/secrets/?app=web', as(ownerTok));
    expect(app.body.items.map((i: { key: string }) => i.key)).toEqual(['only-app']);
    const key = (qs: string) =>
      t.call('GET', `/api/secrets/?${qs}`, as(ownerTok)).then((r) => r.body.items.map((i: { key: string }) => i.key));
    expect(await key('search=SITE')).toEqual(['site-only']);
    expect(await key('key=cfg')).toEqual(['cfg']);
    expect(await key('tags=staging,nope')).toEqual(['db']);
    expect(await key('secret_type=public-config')).toEqual(['cfg']);
    expect(await key(`created_by=${owner.username}&ordering=-key`)).toEqual(['site-only', 'db', 'cfg']);
    expect(await key('created_by=nobody')).toEqual([]);
    expect(await key('ordering=type__name,key')).toHaveLength(3);
    const p = await t.call('GET', '/api/secrets/?ordering=key&page_size=2&page=2', as(ownerTok));
    expect(p.body.items.map((i: { key: string }) => i.key)).toEqual(['site-only']);
    expect(p.body.previous).toContain(SHOP);
    expect((await t.call('GET', '/api/secrets/?ordering=value', as(ownerTok))).status).toBe(400);
  });

  test('resolveSecretReference: app tier then site tier, fields, clear errors', async () => {
    const ctx = {
      requestId: 'test',
      principal: { kind: 'anonymous' },
      host: SHOP,
      baseUrl: `http://${SHOP}`,
      platform: t.platform,
      log: t.platform.log,
      site: { id: site.id, uuid: site.uuid, slug: 'shop', name: 'shop', schemaName: 'shop', organizationId: 0, environment: 'production' },
    } as RequestContext;
    expect(await resolveSecretReference(ctx, web.id, 'secret.db.password')).toBe('hunter3');
    expect(await resolveSecretReference(ctx, web.id, 'secret.only-app')).toEqual({ a: 1 });
    expect(await resolveSecretReference(ctx, null, ' secret.cfg.url ')).toBe('https://x.test');
    await expect(resolveSecretReference(ctx, null, 'secret.only-app')).rejects.toMatchObject({ status: 404 });
    await expect(resolveSecretReference(ctx, null, 'secret.db.nope')).rejects.toMatchObject({ code: 'secret_resolution_error' });
    await expect(resolveSecretReference(ctx, null, 'db')).rejects.toMatchObject({ status: 400 });
  });

  test('GraphQL Site.secrets lists both tiers without values', async () => {
    const res = await t.call('POST', '/graphql', {
      ...as(ownerTok),
      body: { query: `{ site(slug: "shop") { secrets(pageSize: 10) { total items { key secretType tags app } } } }` },
    });
    expect(res.status).toBe(200);
    const conn = res.body.data.site.secrets;
    expect(conn.total).toBe(4);
    expect(conn.items).toContainEqual({ key: 'only-app', secretType: expect.any(String), tags: [], app: 'web' });
    expect(res.text).not.toContain('hunter');
  });
});
