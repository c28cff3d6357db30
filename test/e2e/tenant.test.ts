// Tenant detection from the Host header (DECISIONS §2): platform hosts, site domains,
// unknown hosts, tenant-only routes, X-Forwarded-Host behind a trusted proxy, and a domain
// change taking effect at once when the cache is invalidated.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg, insertSite } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

let t: TestApp;
let owner: User;
let token: string;
let site: { id: number; uuid: string };

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser();
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'acme', owner.id);
  site = await insertSite(t.platform, org.id, 'shop', 'shop.example.test');
});
afterAll(() => t.close());

const requestLines = () => t.logs.filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l));

test('platform hosts (with or without a port) have no tenant; console routes work there', async () => {
  for (const host of ['localhost', '127.0.0.1:4000', 'LOCALHOST:8080']) {
    const res = await t.call('GET', '/api/users/me/', { token, host });
    expect(res.status).toBe(200);
  }
  expect(requestLines().at(-1).tenant).toBeNull();
});

test('a site domain selects that tenant, case-insensitively and ignoring the port', async () => {
  const res = await t.call('GET', '/api/sites/config/', { token, host: 'Shop.Example.Test:8443' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    site: { uuid: site.uuid, slug: 'shop', schema_name: 'shop' },
    organization: { slug: 'acme' },
    site_settings: {},
    primary_domain: 'shop.example.test',
    domains: [{ domain: 'shop.example.test', is_primary: true }],
  });
  expect(requestLines().at(-1).tenant).toBe('shop');
  // Console routes also work on a tenant host.
  expect((await t.call('GET', '/api/users/me/', { token, host: 'shop.example.test' })).status).toBe(200);
});

test('an unknown host answers 404 tenant_not_found, on REST and GraphQL alike', async () => {
  for (const [method, url] of [
    ['GET', '/api/users/me/'],
    ['POST', '/graphql'],
    ['GET', '/api/sites/config/'],
  ]) {
    const res = await t.call(method, url, {
      token,
      host: 'nobody.example.test',
      body: method === 'POST' ? { query: '{ me { username } }' } : undefined,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.stringContaining('nobody.example.test'), code: 'tenant_not_found', status_code: 404 });
  }
});

test('health checks answer on any host', async () => {
  expect((await t.call('GET', '/healthz', { host: 'nobody.example.test' })).status).toBe(200);
});

test('a site-scoped route on a platform host answers 400 tenant_required', async () => {
  const res = await t.call('GET', '/api/sites/config/', { token });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ detail: expect.any(String), code: 'tenant_required', status_code: 400 });
});

test('site routes check access: another user gets 403, anonymous 401', async () => {
  const stranger = await t.createUser();
  expect((await t.call('GET', '/api/sites/config/', { token: t.tokenFor(stranger), host: 'shop.example.test' })).status).toBe(403);
  expect((await t.call('GET', '/api/sites/config/', { host: 'shop.example.test' })).status).toBe(401);
});

test('X-Forwarded-Host is ignored unless TRUST_PROXY is set', async () => {
  const res = await t.call('GET', '/api/sites/config/', { token, headers: { 'x-forwarded-host': 'shop.example.test' } });
  expect(res.body.code).toBe('tenant_required');
  const proxied = await startTestApp({ TRUST_PROXY: '1' });
  try {
    const user = await proxied.createUser();
    const org = await insertOrg(proxied.platform, 'p-org', user.id);
    await insertSite(proxied.platform, org.id, 'p-site', 'p.example.test');
    const ok = await proxied.call('GET', '/api/sites/config/', {
      token: proxied.tokenFor(user),
      headers: { 'x-forwarded-host': 'p.example.test, internal.lb' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.site.slug).toBe('p-site');
  } finally {
    await proxied.close();
  }
});

test('resolution is cached; invalidating a host makes a domain change take effect at once', async () => {
  expect((await t.call('GET', '/api/sites/config/', { token, host: 'shop.example.test' })).status).toBe(200);
  await t.platform.pool.query('UPDATE domains SET is_active = false WHERE domain = $1', ['shop.example.test']);
  // Still cached: the change is not seen until the writer invalidates the host.
  expect((await t.call('GET', '/api/sites/config/', { token, host: 'shop.example.test' })).status).toBe(200);
  t.platform.invalidation.publish({ kind: 'tenant', host: 'shop.example.test' });
  expect((await t.call('GET', '/api/sites/config/', { token, host: 'shop.example.test' })).body.code).toBe('tenant_not_found');
  await t.platform.pool.query('UPDATE domains SET is_active = true WHERE domain = $1', ['shop.example.test']);
  t.platform.invalidation.publish({ kind: 'tenant' });
  expect((await t.call('GET', '/api/sites/config/', { token, host: 'shop.example.test' })).status).toBe(200);
});

test('a soft-deleted site stops resolving', async () => {
  await t.platform.pool.query('UPDATE sites SET is_deleted = true, is_active = false WHERE id = $1', [site.id]);
  t.platform.invalidation.publish({ kind: 'tenant' });
  expect((await t.call('GET', '/api/users/me/', { token, host: 'shop.example.test' })).body.code).toBe('tenant_not_found');
  await t.platform.pool.query('UPDATE sites SET is_deleted = false, is_active = true WHERE id = $1', [site.id]);
  t.platform.invalidation.publish({ kind: 'tenant' });
});
