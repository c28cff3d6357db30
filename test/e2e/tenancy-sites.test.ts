// Sites and domains through REST: creation with schema and primary domain in one transaction,
// listing, updates, soft delete / restore / purge, domains with the primary switch, tenant
// cache invalidation, access (401/403/404) and isolation between organizations.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

let t: TestApp;
let owner: User, outsider: User, staff: User, superuser: User, viewer: User;
let tok: Record<'owner' | 'outsider' | 'staff' | 'superuser' | 'viewer', string>;
let acme: { id: number; uuid: string };

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const schemaExists = async (name: string) => (await q('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name])).length > 0;
const sitesNamed = async (slug: string) => (await q('SELECT id FROM sites WHERE slug = $1', [slug])).length;

beforeAll(async () => {
  t = await startTestApp();
  [owner, outsider, staff, superuser, viewer] = await Promise.all([
    t.createUser(),
    t.createUser(),
    t.createUser({ isStaff: true }),
    t.createUser({ isSuperuser: true }),
    t.createUser(),
  ]);
  tok = {
    owner: t.tokenFor(owner),
    outsider: t.tokenFor(outsider),
    staff: t.tokenFor(staff),
    superuser: t.tokenFor(superuser),
    viewer: t.tokenFor(viewer),
  };
  acme = await insertOrg(t.platform, 'acme', owner.id);
  await insertOrg(t.platform, 'other', outsider.id);
  // A member who may view sites but not change them.
  await q(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{view_site}')`, [
    acme.id,
    viewer.id,
  ]);
});
afterAll(() => t.close());

async function createSite(org: string, body: Record<string, unknown>, token = tok.owner) {
  const res = await t.call('POST', `/api/organizations/${org}/sites/`, { token, body });
  return res;
}

describe('creating a site', () => {
  test('201 with schema and primary domain, audited', async () => {
    const res = await createSite('acme', { name: 'Main Shop', description: 'd', environment: 'staging', site_settings: { theme: 'dark' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      uuid: expect.any(String),
      slug: 'main-shop',
      name: 'Main Shop',
      description: 'd',
      schema_name: 'main_shop',
      environment: 'staging',
      site_settings: { theme: 'dark' },
      is_active: true,
      is_deleted: false,
      organization: 'acme',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await schemaExists('main_shop')).toBe(true);
    const domains = await q('SELECT d.domain, d.slug, d.is_primary FROM domains d JOIN sites s ON s.id = d.site_id WHERE s.slug = $1', [
      'main-shop',
    ]);
    expect(domains).toEqual([{ domain: 'main-shop.localhost', slug: 'main-shop-localhost', is_primary: true }]);
    const auditRows = await q(`SELECT organization_id, site_id FROM audit_log WHERE object_type = 'site' AND object_id = $1`, [
      res.body.uuid,
    ]);
    expect(auditRows).toEqual([{ organization_id: acme.id, site_id: expect.any(Number) }]);
    // The new host answers at once, with the owner's token.
    const cfg = await t.call('GET', '/api/sites/config/', { token: tok.owner, host: 'main-shop.localhost' });
    expect(cfg.status).toBe(200);
    expect(cfg.body.site.schema_name).toBe('main_shop');
    // Also under /api/cloud/, and by UUID.
    expect((await t.call('GET', `/api/cloud/sites/${res.body.uuid}/`, { token: tok.owner })).body.slug).toBe('main-shop');
  });

  test('a second site of the same name gets a suffix; reserved schema names get a safe variant', async () => {
    expect((await createSite('acme', { name: 'Main Shop' })).body).toMatchObject({ slug: 'main-shop-2', schema_name: 'main_shop_2' });
    const pg = await createSite('acme', { name: 'pg toast' });
    expect(pg.body).toMatchObject({ slug: 'pg-toast', schema_name: 'site__pg_toast' });
    expect(await schemaExists('site__pg_toast')).toBe(true);
    expect((await createSite('acme', { name: 'Public' })).body.schema_name).toBe('site__public');
    // `config` is a path of its own.
    expect((await createSite('acme', { name: 'Config' })).body.slug).toBe('config-2');
  });

  test('concurrent creates of one name all succeed with distinct slugs, schemas and hosts', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => createSite('acme', { name: 'Rush' })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    const slugs = results.map((r) => r.body.slug).sort();
    expect(new Set(slugs).size).toBe(6);
    for (const r of results) expect(await schemaExists(r.body.schema_name)).toBe(true);
    const hosts = await q(`SELECT d.domain FROM domains d JOIN sites s ON s.id = d.site_id WHERE s.slug LIKE 'rush%'`);
    expect(hosts.map((h) => h.domain).sort()).toEqual(slugs.map((s) => `${s}.localhost`).sort());
  });

  test('400 with field errors', async () => {
    const res = await createSite('acme', { description: 5, environment: 'prod', site_settings: [1] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid', status_code: 400 });
    expect(Object.keys(res.body.errors).sort()).toEqual(['description', 'environment', 'name', 'site_settings']);
    expect((await createSite('acme', { name: '  ' })).body.errors.name).toBeDefined();
  });

  test('a conflicting schema or host: 409, no site row, no new schema (one transaction)', async () => {
    await q('CREATE SCHEMA blocked_site');
    const res = await createSite('acme', { name: 'Blocked Site' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect(await sitesNamed('blocked-site')).toBe(0);

    // The host is taken: the schema created inside the transaction is rolled back too.
    const first = await createSite('acme', { name: 'Taken Host' });
    await q('UPDATE domains SET domain = $1 WHERE domain = $2', ['taken-elsewhere.localhost', 'taken-host.localhost']);
    await q(`INSERT INTO domains (slug, domain, site_id) SELECT 'x-squat', 'squat.localhost', id FROM sites WHERE uuid = $1`, [
      first.body.uuid,
    ]);
    const squat = await createSite('acme', { name: 'Squat' });
    expect(squat.status).toBe(409);
    expect(squat.body.errors).toEqual({ domain: ['Already in use.'] });
    expect(await sitesNamed('squat')).toBe(0);
    expect(await schemaExists('squat')).toBe(false);
  });

  test('401, 403, 404 (another organization), API keys', async () => {
    expect((await t.call('POST', '/api/organizations/acme/sites/', { body: { name: 'x' } })).status).toBe(401);
    expect((await createSite('acme', { name: 'x' }, tok.viewer)).status).toBe(403);
    const foreign = await createSite('acme', { name: 'x' }, tok.outsider);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
    expect((await createSite(acme.uuid, { name: 'x' }, tok.outsider)).status).toBe(404);
    expect((await createSite('acme', { name: 'Staff Made' }, tok.staff)).status).toBe(201);
  });
});

describe('reading and listing', () => {
  test('lists, with search, ordering, pagination and isolation', async () => {
    const all = await t.call('GET', '/api/sites/?page_size=2&ordering=-name', { token: tok.owner });
    expect(all.status).toBe(200);
    expect(all.body.count).toBeGreaterThan(3);
    expect(all.body.results).toHaveLength(2);
    expect(all.body.next).toContain('page=2');
    const found = await t.call('GET', '/api/organizations/acme/sites/?search=toast', { token: tok.owner });
    expect(found.body.results.map((s: any) => s.slug)).toEqual(['pg-toast']);
    expect((await t.call('GET', '/api/sites/?ordering=secret', { token: tok.owner })).status).toBe(400);
    expect((await t.call('GET', '/api/sites/?is_active=maybe', { token: tok.owner })).status).toBe(400);
    expect((await t.call('GET', '/api/sites/', { token: tok.outsider })).body.count).toBe(0);
    expect((await t.call('GET', '/api/organizations/acme/sites/', { token: tok.outsider })).status).toBe(404);
    expect((await t.call('GET', '/api/sites/', {})).status).toBe(401);
    expect((await t.call('GET', '/api/sites/main-shop/', { token: tok.viewer })).status).toBe(200);
  });

  test("another organization's site answers 404 by slug and by UUID", async () => {
    const site = (await t.call('GET', '/api/sites/main-shop/', { token: tok.owner })).body;
    for (const ref of ['main-shop', site.uuid]) {
      for (const [method, url] of [
        ['GET', `/api/sites/${ref}/`],
        ['PATCH', `/api/sites/${ref}/`],
        ['DELETE', `/api/sites/${ref}/`],
        ['POST', `/api/sites/${ref}/restore/`],
        ['GET', `/api/sites/${ref}/domains/`],
        ['POST', `/api/sites/${ref}/domains/`],
        ['GET', `/api/sites/${ref}/domains/main-shop-localhost/`],
        ['PATCH', `/api/sites/${ref}/domains/main-shop-localhost/`],
        ['DELETE', `/api/sites/${ref}/domains/main-shop-localhost/`],
      ]) {
        const res = await t.call(method, url, {
          token: tok.outsider,
          body: method === 'GET' || method === 'DELETE' ? undefined : { name: 'x', domain: 'x.example.test' },
        });
        expect([url, method, res.status]).toEqual([url, method, 404]);
      }
    }
  });
});

describe('updating, deleting, restoring, purging', () => {
  test('PUT and PATCH', async () => {
    const put = await t.call('PUT', '/api/sites/main-shop-2/', {
      token: tok.owner,
      body: { name: 'Renamed', environment: 'production', site_settings: { a: 1 } },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ slug: 'main-shop-2', name: 'Renamed', environment: 'production', site_settings: { a: 1 } });
    const patch = await t.call('PATCH', '/api/sites/main-shop-2/', { token: tok.owner, body: { description: 'new' } });
    expect(patch.body).toMatchObject({ name: 'Renamed', description: 'new' });
    expect(
      (await t.call('PUT', '/api/sites/main-shop-2/', { token: tok.owner, body: { description: 'no name' } })).body.errors.name,
    ).toBeDefined();
    expect((await t.call('PATCH', '/api/sites/main-shop-2/', { token: tok.owner, body: { environment: 'qa' } })).status).toBe(400);
    expect((await t.call('PATCH', '/api/sites/main-shop-2/', { token: tok.owner, body: { name: 7 } })).body.errors).toEqual({
      name: ['Must be a string.'],
    });
    expect((await t.call('PATCH', '/api/sites/main-shop-2/', { token: tok.owner, body: ['x'] })).status).toBe(400);
    expect((await t.call('PATCH', '/api/sites/nope/', { token: tok.owner, body: { name: 'x' } })).status).toBe(404);
    expect((await t.call('PATCH', '/api/sites/main-shop-2/', { token: tok.viewer, body: { name: 'x' } })).status).toBe(403);
  });

  test('DELETE soft-deletes, the hosts stop at once, restore brings them back', async () => {
    const host = 'main-shop-2.localhost';
    expect((await t.call('GET', '/api/sites/config/', { token: tok.owner, host })).status).toBe(200);
    expect((await t.call('DELETE', '/api/sites/main-shop-2/', { token: tok.viewer })).status).toBe(403);
    expect((await t.call('DELETE', '/api/sites/main-shop-2/', { token: tok.owner })).status).toBe(204);
    expect((await t.call('GET', '/api/sites/config/', { token: tok.owner, host })).body.code).toBe('tenant_not_found');
    expect((await t.call('GET', '/api/sites/main-shop-2/', { token: tok.owner })).status).toBe(404);
    expect(await schemaExists('main_shop_2')).toBe(true); // kept until purged
    const withDeleted = await t.call('GET', '/api/sites/?include_deleted=true&search=main-shop-2', { token: tok.owner });
    expect(withDeleted.body.results).toMatchObject([{ slug: 'main-shop-2', is_active: false, is_deleted: true }]);
    expect((await t.call('GET', '/api/sites/?include_deleted=true&search=main-shop-2', { token: tok.viewer })).body.count).toBe(0);

    expect((await t.call('POST', '/api/sites/main-shop-2/restore/', { token: tok.viewer })).status).toBe(404);
    const restored = await t.call('POST', '/api/sites/main-shop-2/restore/', { token: tok.owner });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ is_active: true, is_deleted: false });
    expect((await t.call('GET', '/api/sites/config/', { token: tok.owner, host })).status).toBe(200);
  });

  test('purge: superusers only; drops the schema and the row', async () => {
    expect((await t.call('DELETE', '/api/sites/main-shop-2/?purge=true', { token: tok.owner })).status).toBe(403);
    expect((await t.call('DELETE', '/api/sites/main-shop-2/?purge=true', { token: tok.staff })).status).toBe(403);
    expect((await t.call('DELETE', '/api/sites/main-shop-2/?purge=true', { token: tok.superuser })).status).toBe(204);
    expect(await schemaExists('main_shop_2')).toBe(false);
    expect(await sitesNamed('main-shop-2')).toBe(0);
    expect((await t.call('GET', '/api/sites/config/', { token: tok.owner, host: 'main-shop-2.localhost' })).body.code).toBe(
      'tenant_not_found',
    );
  });
});

describe('domains', () => {
  const base = '/api/sites/main-shop/domains/';

  test('add, read, list; the host answers at once', async () => {
    // Cache a "no site here" first, to check that adding the domain forgets it.
    expect((await t.call('GET', '/api/sites/config/', { token: tok.owner, host: 'shop.example.test' })).status).toBe(404);
    const res = await t.call('POST', base, { token: tok.owner, body: { domain: 'Shop.Example.TEST' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      uuid: expect.any(String),
      slug: 'shop-example-test',
      domain: 'shop.example.test',
      is_primary: false,
      is_active: true,
      site: expect.any(String),
      created_at: expect.any(String),
    });
    expect((await t.call('GET', '/api/sites/config/', { token: tok.owner, host: 'shop.example.test' })).body.site.slug).toBe('main-shop');
    expect((await t.call('GET', `${base}shop-example-test/`, { token: tok.viewer })).body.domain).toBe('shop.example.test');
    expect((await t.call('GET', `${base}${res.body.uuid}/`, { token: tok.owner })).status).toBe(200);
    const list = await t.call('GET', base, { token: tok.owner });
    expect(list.body.results.map((d: any) => [d.domain, d.is_primary])).toEqual([
      ['main-shop.localhost', true],
      ['shop.example.test', false],
    ]);
    expect((await t.call('GET', `${base}nope/`, { token: tok.owner })).status).toBe(404);
  });

  test('400, 403, 409', async () => {
    for (const domain of ['no spaces.com', 'http://x.com', 'x.com:80', 'single', '1.2.3.4', 'localhost', '']) {
      const res = await t.call('POST', base, { token: tok.owner, body: { domain } });
      expect([domain, res.status, Object.keys(res.body.errors ?? {})]).toEqual([domain, 400, ['domain']]);
    }
    expect(
      (await t.call('POST', base, { token: tok.owner, body: { domain: 'ok.example.test', is_primary: 'yes' } })).body.errors.is_primary,
    ).toBeDefined();
    expect((await t.call('POST', base, { token: tok.viewer, body: { domain: 'v.example.test' } })).status).toBe(403);
    expect((await t.call('POST', base, { body: { domain: 'v.example.test' } })).status).toBe(401);
    expect((await t.call('GET', base, {})).status).toBe(401);
    const taken = await t.call('POST', '/api/sites/pg-toast/domains/', { token: tok.owner, body: { domain: 'shop.example.test' } });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('conflict');
  });

  test('switching the primary domain is atomic; the primary cannot be removed while others exist', async () => {
    const patched = await t.call('PATCH', `${base}shop-example-test/`, { token: tok.owner, body: { is_primary: true } });
    expect(patched.status).toBe(200);
    expect(patched.body.is_primary).toBe(true);
    const primaries = await q('SELECT d.domain FROM domains d JOIN sites s ON s.id = d.site_id WHERE s.slug = $1 AND d.is_primary', [
      'main-shop',
    ]);
    expect(primaries).toEqual([{ domain: 'shop.example.test' }]);
    const cfg = await t.call('GET', '/api/sites/config/', { token: tok.owner, host: 'main-shop.localhost' });
    expect(cfg.body.primary_domain).toBe('shop.example.test');
    expect((await t.call('PATCH', `${base}shop-example-test/`, { token: tok.owner, body: { is_primary: false } })).status).toBe(400);
    const del = await t.call('DELETE', `${base}shop-example-test/`, { token: tok.owner });
    expect(del.status).toBe(400);
    expect(del.body.code).toBe('invalid');
  });

  test('renaming a host and removing a domain take effect at once on those hosts', async () => {
    const renamed = await t.call('PATCH', `${base}main-shop-localhost/`, { token: tok.owner, body: { domain: 'www.example.test' } });
    expect(renamed.body.domain).toBe('www.example.test');
    expect((await t.call('GET', '/api/sites/config/', { token: tok.owner, host: 'main-shop.localhost' })).body.code).toBe(
      'tenant_not_found',
    );
    expect((await t.call('GET', '/api/sites/config/', { token: tok.owner, host: 'www.example.test' })).status).toBe(200);
    expect((await t.call('PATCH', `${base}main-shop-localhost/`, { token: tok.owner, body: { domain: 'shop.example.test' } })).status).toBe(
      409,
    );
    expect((await t.call('DELETE', `${base}main-shop-localhost/`, { token: tok.viewer })).status).toBe(403);
    expect((await t.call('DELETE', `${base}main-shop-localhost/`, { token: tok.owner })).status).toBe(204);
    expect((await t.call('GET', '/api/sites/config/', { token: tok.owner, host: 'www.example.test' })).body.code).toBe('tenant_not_found');
    const audits = await q(
      `SELECT action FROM audit_log WHERE object_type = 'domain' AND site_id IS NOT NULL AND organization_id = $1 ORDER BY id`,
      [acme.id],
    );
    expect(audits.map((a) => a.action)).toEqual(['create', 'update', 'update', 'delete']);
  });

  test('a custom domain under SITE_BASE_DOMAIN is refused with 400 (the platform gives those out); renaming onto one too', async () => {
    for (const domain of ['future-site.localhost', 'A.B.LOCALHOST', 'main-shop-2.localhost']) {
      const res = await t.call('POST', base, { token: tok.owner, body: { domain } });
      expect([domain, res.status, res.body.code, Object.keys(res.body.errors ?? {})]).toEqual([domain, 400, 'invalid', ['domain']]);
      expect(res.body.errors.domain[0]).toContain('localhost');
    }
    // A look-alike that is not under the base domain is fine.
    expect((await t.call('POST', base, { token: tok.owner, body: { domain: 'notlocalhost.example.test' } })).status).toBe(201);
    const rename = await t.call('PATCH', `${base}notlocalhost-example-test/`, { token: tok.owner, body: { domain: 'squat.localhost' } });
    expect(rename.status).toBe(400);
    expect((await t.call('DELETE', `${base}notlocalhost-example-test/`, { token: tok.owner })).status).toBe(204);
  });
});
