// Secret types through REST (seed 2 "Secrets", DECISIONS §9): system types in every site (created
// through the API or inserted directly), CRUD of custom types, schema validation, immutability,
// the seed's error bodies, access and tenant isolation.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { requireSecretType, validateSecretValue } from '../../subgraphs/secrets/secret-type.service.js';
import type { RequestContext } from '../../subgraphs/core/context.js';

const SHOP = 'shop.types.test';
const OTHER = 'other.types.test';
const SYSTEM = [
  'analytics-clickhouse',
  'analytics-elasticsearch',
  'analytics-mysql',
  'analytics-postgresql',
  'analytics-redshift',
  'api-key',
  'basic-auth',
  'json',
];

let t: TestApp;
let owner: User, outsider: User, viewer: User, reader: User, writer: User;
let tok: Record<string, string>;
let shopId: number;

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const call = (method: string, url: string, who: string | null, body?: unknown, host = SHOP) =>
  t.call(method, url, { token: who ? tok[who] : undefined, host, body });
const slugs = (body: any) => body.items.map((i: any) => i.slug).sort();

const CUSTOM = {
  type: 'custom',
  name: 'Webhook Signing',
  description: 'HMAC secret for outgoing webhooks',
  sensitivity_level: 'sensitive',
  schema: { type: 'object', properties: { secret: { type: 'string', minLength: 8 } }, required: ['secret'], additionalProperties: false },
};

beforeAll(async () => {
  t = await startTestApp();
  [owner, outsider, viewer, reader, writer] = await Promise.all([1, 2, 3, 4, 5].map(() => t.createUser()));
  tok = {
    owner: t.tokenFor(owner),
    outsider: t.tokenFor(outsider),
    viewer: t.tokenFor(viewer),
    reader: t.tokenFor(reader),
    writer: t.tokenFor(writer),
  };
  const acme = await insertOrg(t.platform, 'types-acme', owner.id);
  shopId = (await insertSite(t.platform, acme.id, 'types-shop', SHOP)).id;
  await insertApp(t.platform, shopId, 'store');
  const member = `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`;
  await q(member, [acme.id, viewer.id, ['view_site']]);
  await q(member, [acme.id, reader.id, ['view_site', 'secrets:read']]);
  await q(member, [acme.id, writer.id, ['view_site', 'secrets:read', 'secrets:write']]);
  const other = await insertOrg(t.platform, 'types-other', outsider.id);
  const otherSite = await insertSite(t.platform, other.id, 'types-other', OTHER);
  await insertApp(t.platform, otherSite.id, 'elsewhere');
});
afterAll(() => t.close());

describe('system types', () => {
  test('present in a site inserted directly (lazy path), with the seed schemas', async () => {
    const res = await call('GET', '/api/secret-types/?type=system&page_size=100', 'reader');
    expect(res.status).toBe(200);
    expect(slugs(res.body)).toEqual(SYSTEM);
    expect(res.body).toMatchObject({ count: 8, next: null, previous: null });
    const pg = res.body.items.find((i: any) => i.slug === 'analytics-postgresql');
    expect(pg).toMatchObject({ type: 'system', sensitivity_level: 'sensitive' });
    expect(pg.schema.required.sort()).toEqual(['database', 'host', 'password', 'port', 'username']);
    expect(pg.schema.properties.port).toMatchObject({ type: 'integer', default: 5432 });
    const es = res.body.items.find((i: any) => i.slug === 'analytics-elasticsearch');
    expect(es.schema.required.sort()).toEqual(['host', 'index']);
    expect(es.schema.properties.max_result_rows.default).toBe(10000);
    const ch = res.body.items.find((i: any) => i.slug === 'analytics-clickhouse');
    expect(ch.schema.properties).toMatchObject({ port: { default: 8443 }, secure: { type: 'boolean', default: true } });
  });

  test('present in a site created through POST /api/organizations/{org}/sites/', async () => {
    const created = await t.call('POST', '/api/organizations/types-acme/sites/', { token: tok.owner, body: { name: 'Fresh Types' } });
    expect(created.status).toBe(201);
    const rows = await q(
      `SELECT st.slug FROM secret_types st JOIN sites s ON s.id = st.site_id WHERE s.uuid = $1 AND st.type = 'system' ORDER BY slug`,
      [created.body.uuid],
    );
    expect(rows.map((r) => r.slug)).toEqual(SYSTEM);
  });

  test('cannot be deleted; schema cannot change; 400 {error}', async () => {
    const del = await call('DELETE', '/api/secret-types/json/', 'owner');
    expect(del.status).toBe(400);
    expect(del.body).toEqual({ error: expect.stringContaining('system') });
    const put = await call('PUT', '/api/secret-types/json/', 'owner', { schema: { type: 'string' } });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ error: expect.any(String) });
  });

  test('values validated by validateSecretValue (analytics-postgresql)', async () => {
    const ctx = { site: { id: shopId }, platform: t.platform } as unknown as RequestContext;
    const type = await requireSecretType(ctx, 'analytics-postgresql');
    expect(() => validateSecretValue(type, { host: 'db', port: 5432, database: 'd', username: 'u', password: 'p' })).not.toThrow();
    let err: any;
    try {
      validateSecretValue(type, { host: 'db', port: '5432', database: 'd', username: 'u', password: 'hunter2-secret', extra: 1 });
    } catch (e) {
      err = e;
    }
    expect(err.status).toBe(400);
    expect(err.details.body.error).toBe('Schema validation failed');
    expect(err.details.body.detail).toMatchObject({ port: expect.any(Array), non_field_errors: expect.any(Array) });
    expect(JSON.stringify(err.details.body)).not.toContain('hunter2');
    await expect(requireSecretType(ctx, 'nope')).rejects.toMatchObject({ status: 404 });
  });
});

describe('custom types', () => {
  test('create → 201, slug from name; get; list filters, search, ordering', async () => {
    const res = await call('POST', '/api/secret-types/', 'writer', CUSTOM);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ ...CUSTOM, slug: 'webhook-signing', created_at: expect.any(String), modified_at: expect.any(String) });
    const pub = await call('POST', '/api/secret-types/', 'owner', {
      name: 'Public Flags',
      sensitivity_level: 'public',
      schema: { type: 'object' },
    });
    expect(pub.body).toMatchObject({ slug: 'public-flags', type: 'custom', sensitivity_level: 'public', description: '' });
    expect((await call('GET', '/api/secret-types/webhook-signing/', 'reader')).body).toEqual(res.body);

    expect(slugs((await call('GET', '/api/secret-types/?type=custom', 'reader')).body)).toEqual(['public-flags', 'webhook-signing']);
    expect(slugs((await call('GET', '/api/secret-types/?search=HMAC', 'reader')).body)).toEqual(['webhook-signing']);
    expect(slugs((await call('GET', '/api/secret-types/?search=webhook', 'reader')).body)).toEqual(['webhook-signing']);
    expect(slugs((await call('GET', '/api/secret-types/?sensitivity_level=public', 'reader')).body)).toEqual(['public-flags']);
    const byName = (await call('GET', '/api/secret-types/?page_size=100', 'reader')).body.items.map((i: any) => i.name);
    expect(byName).toEqual([...byName].sort((a: string, b: string) => (a < b ? -1 : 1)));
    const desc = (await call('GET', '/api/secret-types/?ordering=-created_at&page_size=1', 'reader')).body;
    expect(desc.items[0].slug).toBe('public-flags');
    expect(desc.count).toBe(10);
    expect(desc.next).toContain('page=2');
    const sens = (await call('GET', '/api/secret-types/?ordering=sensitivity_level', 'reader')).body.items;
    expect(sens[0].sensitivity_level).toBe('private');
    expect((await call('GET', '/api/secret-types/?ordering=secret', 'reader')).status).toBe(400);
    expect((await call('GET', '/api/secret-types/?type=other', 'reader')).status).toBe(400);
  });

  test('400: invalid JSON Schema, missing fields, bad enums, duplicate name {message, field}', async () => {
    const badSchema = await call('POST', '/api/secret-types/', 'writer', { ...CUSTOM, name: 'Bad', schema: { type: 'strnig' } });
    expect(badSchema.status).toBe(400);
    expect(badSchema.body.detail.schema).toEqual(expect.any(Array));
    expect((await call('POST', '/api/secret-types/', 'writer', { ...CUSTOM, name: 'Bad', schema: { properties: 3 } })).status).toBe(400);
    expect((await call('POST', '/api/secret-types/', 'writer', { ...CUSTOM, name: 'Bad', schema: [] })).status).toBe(400);
    const missing = await call('POST', '/api/secret-types/', 'writer', { type: 'weird', sensitivity_level: 'secret' });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.detail).sort()).toEqual(['name', 'schema', 'sensitivity_level', 'type']);
    const dup = await call('POST', '/api/secret-types/', 'writer', { ...CUSTOM });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: expect.stringContaining('Webhook Signing'), field: 'name' });
    const dupSystem = await call('POST', '/api/secret-types/', 'writer', { ...CUSTOM, name: 'json' });
    expect(dupSystem.body).toEqual({ message: expect.any(String), field: 'name' });
  });

  test('PUT: partial update of name, description, schema; slug stays', async () => {
    const res = await call('PUT', '/api/secret-types/webhook-signing/', 'writer', { description: 'Signing key' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Webhook Signing', description: 'Signing key', slug: 'webhook-signing' });
    const renamed = await call('PUT', '/api/secret-types/webhook-signing/', 'writer', {
      name: 'Hook Key',
      schema: { type: 'object', required: ['k'] },
    });
    expect(renamed.body).toMatchObject({ name: 'Hook Key', slug: 'webhook-signing', schema: { type: 'object', required: ['k'] } });
    // Same values for the immutable fields are accepted.
    expect(
      (await call('PUT', '/api/secret-types/webhook-signing/', 'writer', { type: 'custom', sensitivity_level: 'sensitive' })).status,
    ).toBe(200);
    const dup = await call('PUT', '/api/secret-types/webhook-signing/', 'writer', { name: 'Public Flags' });
    expect(dup.body).toEqual({ message: expect.any(String), field: 'name' });
    expect((await call('PUT', '/api/secret-types/webhook-signing/', 'writer', { schema: { type: 1 } })).status).toBe(400);
  });

  test('immutability: type and sensitivity_level → 400 {error, detail: {field, current, attempted}}', async () => {
    const type = await call('PUT', '/api/secret-types/webhook-signing/', 'writer', { type: 'system' });
    expect(type.status).toBe(400);
    expect(type.body).toEqual({ error: expect.any(String), detail: { field: 'type', current: 'custom', attempted: 'system' } });
    const sens = await call('PUT', '/api/secret-types/webhook-signing/', 'writer', { sensitivity_level: 'public', name: 'Other' });
    expect(sens.body).toEqual({
      error: expect.any(String),
      detail: { field: 'sensitivity_level', current: 'sensitive', attempted: 'public' },
    });
    expect((await call('GET', '/api/secret-types/webhook-signing/', 'reader')).body.name).toBe('Hook Key');
  });

  test('DELETE: refused while in use (naming the count), then 200 {message, detail}', async () => {
    const type = (await q('SELECT id FROM secret_types WHERE site_id = $1 AND slug = $2', [shopId, 'public-flags']))[0];
    await q(`INSERT INTO secrets (site_id, key, secret_type_id, value_plain) VALUES ($1, 'flag-a', $2, '{}'), ($1, 'flag-b', $2, '{}')`, [
      shopId,
      type.id,
    ]);
    const refused = await call('DELETE', '/api/secret-types/public-flags/', 'writer');
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: expect.stringContaining('2 secrets') });
    await q('DELETE FROM secrets WHERE secret_type_id = $1', [type.id]);
    const ok = await call('DELETE', '/api/secret-types/public-flags/', 'writer');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: expect.any(String), detail: expect.any(String) });
    expect((await call('GET', '/api/secret-types/public-flags/', 'reader')).status).toBe(404);
  });
});

describe('access and isolation', () => {
  test('401 without credentials, in the platform envelope', async () => {
    for (const [m, u] of [
      ['GET', '/api/secret-types/'],
      ['POST', '/api/secret-types/'],
      ['GET', '/api/secret-types/json/'],
      ['PUT', '/api/secret-types/json/'],
      ['DELETE', '/api/secret-types/json/'],
      ['GET', '/api/apps/store/secrets/types/'],
    ]) {
      const res = await call(m, u, null, {});
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'not_authenticated', status_code: 401 });
    }
  });

  test('403: no secrets:read to read, no secrets:write to change', async () => {
    const res = await call('GET', '/api/secret-types/', 'viewer');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
    expect((await call('GET', '/api/secret-types/json/', 'viewer')).status).toBe(403);
    expect((await call('POST', '/api/secret-types/', 'reader', { ...CUSTOM, name: 'X' })).status).toBe(403);
    expect((await call('PUT', '/api/secret-types/json/', 'reader', { description: 'x' })).status).toBe(403);
    expect((await call('DELETE', '/api/secret-types/webhook-signing/', 'reader')).status).toBe(403);
  });

  test("404 in the secrets envelope; another site never lists or shows this site's types", async () => {
    const missing = await call('GET', '/api/secret-types/nope/', 'reader');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
    const mine = await call('POST', '/api/secret-types/', 'owner', { ...CUSTOM, name: 'Shop Only' });
    expect(mine.status).toBe(201);
    expect((await call('GET', '/api/secret-types/shop-only/', 'outsider', undefined, OTHER)).status).toBe(404);
    expect((await call('PUT', '/api/secret-types/shop-only/', 'outsider', { name: 'x' }, OTHER)).status).toBe(404);
    expect((await call('DELETE', '/api/secret-types/shop-only/', 'outsider', undefined, OTHER)).status).toBe(404);
    const theirs = await call('GET', '/api/secret-types/?page_size=100', 'outsider', undefined, OTHER);
    expect(slugs(theirs.body)).toEqual(SYSTEM);
    // The outsider has no rights on this site at all.
    expect((await call('GET', '/api/secret-types/shop-only/', 'outsider')).status).toBe(403);
  });

  test('tenant_required on a platform host', async () => {
    const res = await t.call('GET', '/api/secret-types/', { token: tok.owner });
    expect(res.status).toBe(400);
  });
});

describe('GET /api/apps/{app}/secrets/types/', () => {
  test("all of the site's types; unknown or foreign app 404; 403 without secrets:read", async () => {
    const res = await call('GET', '/api/apps/store/secrets/types/?page_size=100', 'reader');
    expect(res.status).toBe(200);
    expect(slugs(res.body)).toEqual(expect.arrayContaining([...SYSTEM, 'shop-only', 'webhook-signing']));
    expect((await call('GET', '/api/apps/elsewhere/secrets/types/', 'reader')).status).toBe(404);
    expect((await call('GET', '/api/apps/nope/secrets/types/', 'owner')).status).toBe(404);
    expect((await call('GET', '/api/apps/store/secrets/types/', 'viewer')).status).toBe(403);
  });

  test('an API key of an app of the site may read the types', async () => {
    const key = await call('POST', '/api/apps/store/api-keys/', 'owner', { name: 'ci' });
    expect(key.status).toBe(201);
    const res = await t.call('GET', '/api/apps/store/secrets/types/', {
      host: SHOP,
      headers: { authorization: `Api-Key ${key.body.key}` },
    });
    expect(res.status).toBe(200);
    const write = await t.call('POST', '/api/secret-types/', {
      host: SHOP,
      headers: { authorization: `Api-Key ${key.body.key}` },
      body: { ...CUSTOM, name: 'By Key' },
    });
    expect(write.status).toBe(403);
  });
});
