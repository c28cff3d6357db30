// `Authorization: Api-Key <key>` at the edge (DECISIONS §3): the app's service principal,
// valid only on its own site's hosts.
import type { FastifyInstance } from 'fastify';
import { apiKeyFormat } from '../../subgraphs/tenancy/api-key-format.js';
import { buildApp } from '../../gateway/app.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let probe: FastifyInstance;

interface Site {
  siteId: number;
  appId: number;
  host: string;
}

async function insertSite(slug: string): Promise<Site> {
  const q = (sql: string, params: unknown[]) => t.platform.pool.query(sql, params).then((r) => r.rows[0]);
  const org = await q('INSERT INTO organizations (slug, name) VALUES ($1, $1) RETURNING id', [`org-${slug}`]);
  const site = await q('INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ($1, $1, $2, $3) RETURNING id', [
    slug,
    org.id,
    `site_${slug.replace(/-/g, '_')}`,
  ]);
  const host = `${slug}.localhost`;
  await q('INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ($1, $2, $3, true) RETURNING id', [`d-${slug}`, host, site.id]);
  const app = await q('INSERT INTO apps (site_id, slug, name) VALUES ($1, $2, $2) RETURNING id', [site.id, 'main']);
  return { siteId: site.id, appId: app.id, host };
}

async function insertKey(appId: number) {
  const key = apiKeyFormat.generate();
  const { rows } = await t.platform.pool.query('INSERT INTO api_keys (app_id, prefix, key_hash) VALUES ($1, $2, $3) RETURNING id', [
    appId,
    key.prefix,
    key.hash,
  ]);
  return { ...key, id: rows[0].id as number };
}

const whoami = async (key: string, host: string) => {
  const res = await probe.inject({ method: 'GET', url: '/api/test-whoami/', headers: { host, authorization: `Api-Key ${key}` } });
  return { status: res.statusCode, body: res.json() };
};

beforeAll(async () => {
  t = await startTestApp();
  // The same edge, plus one route that shows the principal the edge built.
  probe = await buildApp(t.platform);
  probe.get('/api/test-whoami/', async (request) => request.ctx.principal);
  await probe.ready();
});
afterAll(async () => {
  await probe.close();
  await t.close();
});

test('generated keys have the documented shape and only their hash is stored', () => {
  const a = apiKeyFormat.generate();
  expect(a.key).toMatch(/^tk_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
  expect(a.key.startsWith(`tk_${a.prefix}_`)).toBe(true);
  expect(a.hash).toBe(apiKeyFormat.hash(a.key));
  expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
  expect(apiKeyFormat.generate().key).not.toBe(a.key);
});

test('a key acts as its app on its own site', async () => {
  const site = await insertSite('keys-a');
  const key = await insertKey(site.appId);
  const res = await whoami(key.key, site.host);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ kind: 'api_key', keyId: key.id, appId: site.appId, siteId: site.siteId });
  // Through the REST table too: the principal is not a user, so /users/me/ is not for it.
  const me = await t.call('GET', '/api/users/me/', { host: site.host, headers: { authorization: `Api-Key ${key.key}` } });
  expect(me.status).toBe(401);
  expect(me.body.code).toBe('not_authenticated');
  const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'request' && l.apiKey === key.id && l.path === '/api/users/me/');
  expect(line).toMatchObject({ path: '/api/users/me/', tenant: 'keys-a' });
});

test('on another site or a platform host the key answers 401 authentication_failed', async () => {
  const a = await insertSite('keys-b');
  const b = await insertSite('keys-c');
  const key = await insertKey(a.appId);
  for (const host of [b.host, 'localhost']) {
    const res = await t.call('GET', '/api/users/me/', { host, headers: { authorization: `Api-Key ${key.key}` } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'authentication_failed', status_code: 401 });
  }
});

test('unknown, malformed, revoked keys and keys of inactive apps are refused', async () => {
  const site = await insertSite('keys-d');
  const unknown = apiKeyFormat.generate().key;
  expect((await whoami(unknown, site.host)).body.code).toBe('authentication_failed');
  expect((await whoami('not-a-key', site.host)).status).toBe(401);

  const revoked = await insertKey(site.appId);
  expect((await whoami(revoked.key, site.host)).status).toBe(200);
  await t.platform.pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.id]);
  t.platform.invalidation.publish({ kind: 'apiKeys' }); // what the revoking service publishes
  expect((await whoami(revoked.key, site.host)).status).toBe(401);

  const live = await insertKey(site.appId);
  await t.platform.pool.query('UPDATE apps SET is_active = false WHERE id = $1', [site.appId]);
  expect((await whoami(live.key, site.host)).status).toBe(401);
});

test('last_used_at is recorded', async () => {
  const site = await insertSite('keys-e');
  const key = await insertKey(site.appId);
  await whoami(key.key, site.host);
  await new Promise((r) => setTimeout(r, 100));
  const { rows } = await t.platform.pool.query('SELECT last_used_at FROM api_keys WHERE id = $1', [key.id]);
  expect(rows[0].last_used_at).not.toBeNull();
});
