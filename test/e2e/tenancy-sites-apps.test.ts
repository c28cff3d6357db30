// Apps and their API keys through REST (DECISIONS §3, §5): CRUD on a tenant host, 404 for
// unknown, deleted or foreign apps, keys shown once and stored hashed, a key working on its
// own site's host only and stopping at once when revoked or when its app is deleted.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

const SHOP = 'shop.example.test';
const OTHER = 'other.example.test';

let t: TestApp;
let owner: User, outsider: User, viewer: User;
let ownerTok: string, outsiderTok: string, viewerTok: string;
let hiddenUuid: string;

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const withKey = (key: string) => ({ headers: { authorization: `Api-Key ${key}` } });

beforeAll(async () => {
  t = await startTestApp();
  [owner, outsider, viewer] = await Promise.all([t.createUser(), t.createUser(), t.createUser()]);
  [ownerTok, outsiderTok, viewerTok] = [owner, outsider, viewer].map((u) => t.tokenFor(u));
  const acme = await insertOrg(t.platform, 'acme', owner.id);
  await insertSite(t.platform, acme.id, 'shop', SHOP);
  await q(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{view_site}')`, [
    acme.id,
    viewer.id,
  ]);
  const other = await insertOrg(t.platform, 'other', outsider.id);
  const otherSite = await insertSite(t.platform, other.id, 'other', OTHER);
  hiddenUuid = (await insertApp(t.platform, otherSite.id, 'hidden')).uuid;
});
afterAll(() => t.close());

describe('apps', () => {
  test('create: 201, slug generated and unique per site, audited', async () => {
    const res = await t.call('POST', '/api/apps/', { token: ownerTok, host: SHOP, body: { name: 'Store Front', description: 'web' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      uuid: expect.any(String),
      name: 'Store Front',
      slug: 'store-front',
      description: 'web',
      table_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const again = await t.call('POST', '/api/apps/', { token: ownerTok, host: SHOP, body: { name: 'Store Front' } });
    expect(again.body.slug).toBe('store-front-2');
    // Another site may use the same slug.
    const elsewhere = await t.call('POST', '/api/apps/', { token: outsiderTok, host: OTHER, body: { name: 'Store Front' } });
    expect(elsewhere.body.slug).toBe('store-front');
    const audits = await q(`SELECT organization_id, site_id FROM audit_log WHERE object_type = 'app' AND object_id = $1`, [res.body.uuid]);
    expect(audits).toEqual([{ organization_id: expect.any(Number), site_id: expect.any(Number) }]);
  });

  test('create: 400, 401, 403, tenant_required', async () => {
    const bad = await t.call('POST', '/api/apps/', { token: ownerTok, host: SHOP, body: { description: 1 } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['description', 'name']);
    expect((await t.call('POST', '/api/apps/', { host: SHOP, body: { name: 'x' } })).status).toBe(401);
    expect((await t.call('POST', '/api/apps/', { token: viewerTok, host: SHOP, body: { name: 'x' } })).status).toBe(403);
    expect((await t.call('POST', '/api/apps/', { token: outsiderTok, host: SHOP, body: { name: 'x' } })).status).toBe(403);
    expect((await t.call('POST', '/api/apps/', { token: ownerTok, body: { name: 'x' } })).body.code).toBe('tenant_required');
  });

  test('read and list (view_site), search, ordering', async () => {
    const list = await t.call('GET', '/api/apps/?ordering=-slug', { token: viewerTok, host: SHOP });
    expect(list.status).toBe(200);
    expect(list.body.results.map((a: any) => a.slug)).toEqual(['store-front-2', 'store-front']);
    expect((await t.call('GET', '/api/apps/?search=nothing', { token: ownerTok, host: SHOP })).body.count).toBe(0);
    expect((await t.call('GET', '/api/apps/?ordering=bogus', { token: ownerTok, host: SHOP })).status).toBe(400);
    const one = await t.call('GET', '/api/apps/store-front/', { token: viewerTok, host: SHOP });
    expect(one.body).toMatchObject({ slug: 'store-front', table_count: 0 });
    expect((await t.call('GET', `/api/apps/${one.body.uuid}/`, { token: ownerTok, host: SHOP })).body.slug).toBe('store-front');
  });

  test("an app of another site answers 404 on this site's host, by slug and UUID", async () => {
    for (const ref of ['hidden', hiddenUuid, 'nope']) {
      for (const [method, url] of [
        ['GET', `/api/apps/${ref}/`],
        ['PATCH', `/api/apps/${ref}/`],
        ['DELETE', `/api/apps/${ref}/`],
        ['GET', `/api/apps/${ref}/api-keys/`],
        ['POST', `/api/apps/${ref}/api-keys/`],
        ['DELETE', `/api/apps/${ref}/api-keys/1/`],
      ]) {
        const res = await t.call(method, url, {
          token: ownerTok,
          host: SHOP,
          body: method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' },
        });
        expect([method, url, res.status]).toEqual([method, url, 404]);
      }
    }
  });

  test('PUT, PATCH, DELETE (soft), restore', async () => {
    const put = await t.call('PUT', '/api/apps/store-front-2/', {
      token: ownerTok,
      host: SHOP,
      body: { name: 'Back Office', description: 'ops' },
    });
    expect(put.body).toMatchObject({ name: 'Back Office', slug: 'store-front-2', description: 'ops' });
    const patch = await t.call('PATCH', '/api/apps/store-front-2/', { token: ownerTok, host: SHOP, body: { description: 'x' } });
    expect(patch.body).toMatchObject({ name: 'Back Office', description: 'x' });
    expect((await t.call('PUT', '/api/apps/store-front-2/', { token: ownerTok, host: SHOP, body: {} })).status).toBe(400);
    expect((await t.call('PATCH', '/api/apps/store-front-2/', { token: ownerTok, host: SHOP, body: { name: '' } })).status).toBe(400);
    expect((await t.call('PATCH', '/api/apps/store-front-2/', { token: viewerTok, host: SHOP, body: { name: 'v' } })).status).toBe(403);
    expect((await t.call('DELETE', '/api/apps/store-front-2/', { token: viewerTok, host: SHOP })).status).toBe(403);
    expect((await t.call('DELETE', '/api/apps/store-front-2/', { token: ownerTok, host: SHOP })).status).toBe(204);
    expect((await t.call('GET', '/api/apps/store-front-2/', { token: ownerTok, host: SHOP })).status).toBe(404);
    expect((await t.call('GET', '/api/apps/store-front-2/api-keys/', { token: ownerTok, host: SHOP })).status).toBe(404);
    expect((await q(`SELECT is_deleted FROM apps WHERE slug = 'store-front-2'`))[0].is_deleted).toBe(true);
    const restored = await t.call('POST', '/api/apps/store-front-2/restore/', { token: ownerTok, host: SHOP });
    expect(restored.status).toBe(200);
    expect((await t.call('GET', '/api/apps/store-front-2/', { token: ownerTok, host: SHOP })).status).toBe(200);
  });
});

describe('API keys', () => {
  const keys = '/api/apps/store-front/api-keys/';
  let created: any;

  test('create returns the key once; only its hash is stored; lists never show it', async () => {
    const res = await t.call('POST', keys, { token: ownerTok, host: SHOP, body: { name: 'ci' } });
    expect(res.status).toBe(201);
    created = res.body;
    expect(created).toEqual({
      id: expect.any(Number),
      uuid: expect.any(String),
      name: 'ci',
      prefix: expect.stringMatching(/^[0-9a-f]{8}$/),
      key: expect.stringMatching(/^tk_[0-9a-f]{8}_/),
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
    });
    expect(created.key.startsWith(`tk_${created.prefix}_`)).toBe(true);
    const stored = await q('SELECT key_hash FROM api_keys WHERE id = $1', [created.id]);
    expect(stored[0].key_hash).not.toContain(created.key);
    const list = await t.call('GET', keys, { token: ownerTok, host: SHOP });
    expect(list.body.results).toEqual([{ ...created, key: undefined }].map(({ key: _k, ...rest }) => rest));
    expect(list.text).not.toContain(created.key);
  });

  test('the key works on its own site only, inside its own app, and cannot manage keys', async () => {
    const own = await t.call('GET', '/api/apps/', { host: SHOP, ...withKey(created.key) });
    expect(own.status).toBe(200);
    expect(own.body.results.map((a: any) => a.slug)).toEqual(['store-front']);
    expect((await t.call('GET', '/api/apps/store-front/', { host: SHOP, ...withKey(created.key) })).status).toBe(200);
    expect((await t.call('GET', '/api/apps/store-front-2/', { host: SHOP, ...withKey(created.key) })).status).toBe(404);
    expect((await t.call('GET', '/api/apps/', { host: OTHER, ...withKey(created.key) })).status).toBe(401);
    expect((await t.call('GET', keys, { host: SHOP, ...withKey(created.key) })).status).toBe(403);
    expect((await t.call('POST', keys, { host: SHOP, body: { name: 'x' }, ...withKey(created.key) })).status).toBe(403);
    expect((await t.call('PATCH', '/api/apps/store-front/', { host: SHOP, body: { name: 'x' }, ...withKey(created.key) })).status).toBe(
      403,
    );
  });

  test('400, 401, 403, and 404 for another organization by slug and UUID', async () => {
    expect((await t.call('POST', keys, { token: ownerTok, host: SHOP, body: {} })).body.errors.name).toBeDefined();
    expect((await t.call('GET', keys, { host: SHOP })).status).toBe(401);
    expect((await t.call('GET', keys, { token: viewerTok, host: SHOP })).status).toBe(403);
    expect((await t.call('DELETE', `${keys}${created.id}/`, { token: viewerTok, host: SHOP })).status).toBe(403);
    expect((await t.call('DELETE', `${keys}999999/`, { token: ownerTok, host: SHOP })).status).toBe(404);
    expect((await t.call('DELETE', `${keys}not-an-id/`, { token: ownerTok, host: SHOP })).status).toBe(404);
    // The outsider, on the host of their own site, addressing this site's app and key.
    const appUuid = (
      await q(`SELECT uuid FROM apps WHERE slug = 'store-front' AND site_id = (SELECT id FROM sites WHERE slug = 'shop')`)
    )[0].uuid;
    for (const ref of ['store-front-2', appUuid]) {
      expect((await t.call('GET', `/api/apps/${ref}/api-keys/`, { token: outsiderTok, host: OTHER })).status).toBe(404);
      expect((await t.call('DELETE', `/api/apps/${ref}/api-keys/${created.uuid}/`, { token: outsiderTok, host: OTHER })).status).toBe(404);
    }
  });

  test('revoke stops the key at once; revoking again changes nothing', async () => {
    expect((await t.call('DELETE', `${keys}${created.uuid}/`, { token: ownerTok, host: SHOP })).status).toBe(204);
    expect((await t.call('GET', '/api/apps/', { host: SHOP, ...withKey(created.key) })).status).toBe(401);
    expect((await t.call('DELETE', `${keys}${created.id}/`, { token: ownerTok, host: SHOP })).status).toBe(204);
    const list = await t.call('GET', keys, { token: ownerTok, host: SHOP });
    expect(list.body.results[0].revoked_at).toEqual(expect.any(String));
    const audits = await q(`SELECT action FROM audit_log WHERE object_type = 'api_key' AND object_id = $1 ORDER BY id`, [created.uuid]);
    expect(audits.map((a) => a.action)).toEqual(['create', 'revoke']);
  });

  test("deleting the key's app stops the key at once", async () => {
    const k = (await t.call('POST', '/api/apps/store-front-2/api-keys/', { token: ownerTok, host: SHOP, body: { name: 'tmp' } })).body;
    expect((await t.call('GET', '/api/apps/', { host: SHOP, ...withKey(k.key) })).status).toBe(200);
    expect((await t.call('DELETE', '/api/apps/store-front-2/', { token: ownerTok, host: SHOP })).status).toBe(204);
    expect((await t.call('GET', '/api/apps/', { host: SHOP, ...withKey(k.key) })).status).toBe(401);
  });
});
