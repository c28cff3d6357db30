// GET /metrics (issue 11 item 6): Prometheus text with requests by route pattern, GraphQL
// operations by bounded name, the database pool, event-loop lag and memory; nothing that
// names a tenant or a raw URL; without METRICS_TOKEN only a direct loopback client reads it,
// with it only the Bearer token does.
import { ConfigError, loadConfig } from '../../subgraphs/core/config.js';
import { MAX_OPERATION_NAMES } from '../../gateway/metrics.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg, insertSite } from '../support/tenants.js';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one series in Prometheus text, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf('}'));
    const parts = inside.split(',');
    if (want.every((w) => parts.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('without METRICS_TOKEN', () => {
  let t: TestApp;
  let owner: User;
  let orgUuid: string;
  beforeAll(async () => {
    t = await startTestApp();
    owner = await t.createUser();
    const org = await insertOrg(t.platform, 'metrics-org', owner.id);
    orgUuid = org.uuid;
    await insertSite(t.platform, org.id, 'metrics-site', 'tenant-secret-name.localhost');
  });
  afterAll(() => t.close());

  const read = async (remoteAddress = '127.0.0.1', headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/metrics', remoteAddress, headers: { host: 'localhost', ...headers } });

  test('counts requests by route pattern and status, never by raw URL or tenant', async () => {
    const token = t.tokenFor(owner);
    expect((await t.call('GET', `/api/organizations/${orgUuid}/`, { token })).status).toBe(200);
    expect((await t.call('GET', '/api/organizations/no-such-org/', { token })).status).toBe(404);
    expect((await t.call('GET', '/no/such/path/12345')).status).toBe(404);
    expect((await t.call('GET', '/api/sites/config/', { host: 'tenant-secret-name.localhost', token })).status).toBe(200);

    const res = await read();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    const pattern = '/api/organizations/:org/';
    expect(sample(text, 'http_requests_total', { method: 'GET', route: pattern, status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: pattern, status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: pattern, status: '200' })).toBeGreaterThanOrEqual(1);
    for (const leak of [orgUuid, 'no-such-org', '12345', 'tenant-secret-name', 'metrics-org', owner.username]) {
      expect(text).not.toContain(leak);
    }
  });

  test('GraphQL operations by name, type and outcome; the database pool; event-loop lag; memory', async () => {
    const token = t.tokenFor(owner);
    const ok = await t.call('POST', '/graphql', { token, body: { query: 'query WhoAmI { me { id } }' } });
    expect(ok.body.data.me.id).toBe(owner.uuid);
    // Twice: the second run may take the fast path, which reports on its own.
    await t.call('POST', '/graphql', { token, body: { query: 'query WhoAmI { me { id } }' } });
    const denied = await t.call('POST', '/graphql', { body: { query: 'query Anonymous { me { id } }' } });
    expect(denied.body.errors[0].extensions.code).toBe('not_authenticated');
    await t.call('POST', '/graphql', { token, body: { query: 'query Broken { nope }' } });

    const text = (await read()).body;
    expect(sample(text, 'graphql_operations_total', { operation: 'WhoAmI', type: 'query', outcome: 'success' })).toBe(2);
    expect(sample(text, 'graphql_operations_total', { operation: 'Anonymous', type: 'query', outcome: 'error' })).toBe(1);
    expect(sample(text, 'graphql_operations_total', { operation: 'invalid', type: 'unknown', outcome: 'error' })).toBe(1);
    expect(text).not.toContain('Broken');
    expect(text).toMatch(/^db_pool_connections \d+$/m);
    expect(text).toMatch(/^db_pool_connections_idle \d+$/m);
    expect(text).toMatch(/^db_pool_waiting_requests \d+$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds [\d.e-]+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+$/m);
  });

  test(`operation names are bounded: after ${MAX_OPERATION_NAMES} names, "other"`, async () => {
    const token = t.tokenFor(owner);
    for (let i = 0; i < MAX_OPERATION_NAMES + 20; i++) {
      await t.call('POST', '/graphql', { token, body: { query: `query Flood${i} { __typename }` } });
    }
    const text = (await read()).body;
    const names = new Set([...text.matchAll(/^graphql_operations_total\{operation="([^"]+)"/gm)].map((m) => m[1]));
    expect(names.size).toBeLessThanOrEqual(MAX_OPERATION_NAMES + 2);
    expect(names.has('other')).toBe(true);
    expect(names.has(`Flood${MAX_OPERATION_NAMES + 19}`)).toBe(false);
  });

  test('another address, or a request through a proxy, gets 404 as for an unknown route', async () => {
    const remote = await read('10.1.2.3');
    expect(remote.statusCode).toBe(404);
    expect(JSON.parse(remote.body).code).toBe('not_found');
    expect(remote.body).not.toContain('http_requests_total');
    expect((await read('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' })).statusCode).toBe(404);
    expect((await read('127.0.0.1', { forwarded: 'for=203.0.113.9' })).statusCode).toBe(404);
    expect((await read('::1')).statusCode).toBe(200);
  });
});

describe('with METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN });
  });
  afterAll(() => t.close());

  const read = (authorization?: string, remoteAddress = '10.1.2.3') =>
    t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress,
      headers: { host: 'localhost', ...(authorization ? { authorization } : {}) },
    });

  test('no token: 401 with a Bearer challenge, from loopback too', async () => {
    for (const address of ['10.1.2.3', '127.0.0.1']) {
      const res = await read(undefined, address);
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(JSON.parse(res.body).code).toBe('not_authenticated');
    }
  });

  test('a wrong token: 403; another scheme: 401', async () => {
    const wrong = await read(`Bearer ${TOKEN}x`);
    expect(wrong.statusCode).toBe(403);
    expect(JSON.parse(wrong.body).code).toBe('permission_denied');
    expect(wrong.body).not.toContain('http_requests_total');
    expect((await read(`Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`)).statusCode).toBe(401);
  });

  test('the token reads the metrics from any address, on any platform host', async () => {
    const res = await read(`Bearer ${TOKEN}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('# TYPE http_requests_total counter');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

test('METRICS_TOKEN shorter than 16 characters stops the start naming it', () => {
  expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
  expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/^METRICS_TOKEN: /);
  expect(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
  expect(loadConfig({}).metricsToken).toBeNull();
});
