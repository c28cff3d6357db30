// A request's database work stops at its deadline (REQUEST_TIMEOUT_MS) and when its client
// disconnects (subgraphs/core/request-db.ts). The slow path is a real one: an internal
// analytics query, whose own time-out (ANALYTICS_TIMEOUT_MS) is set far beyond the deadline.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'shop.deadline.test';
const BASE = '/api/apps/web/analytics/queries/';
// Minutes of work for PostgreSQL, and no table: nothing to prepare.
const SLOW_SQL = 'SELECT count(*) AS n FROM generate_series(1, 20000000000::bigint) AS g';

async function setUp(env: Record<string, string>): Promise<{ t: TestApp; token: string }> {
  const t = await startTestApp({ ANALYTICS_TIMEOUT_MS: '3600000', ...env });
  const owner = await t.createUser();
  const token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'acme', owner.id);
  const site = await insertSite(t.platform, org.id, 'shop', HOST);
  await insertApp(t.platform, site.id, 'web');
  // The site's schema, which internal queries run in (made with its first datatable).
  await createTables(t, { host: HOST, token, app: 'web' }, [
    { name: 'notes', schema: { fields: [{ name: 'id', type: 'integer' }], primaryKey: 'id' } },
  ]);
  const created = await t.call('POST', BASE, {
    host: HOST,
    token,
    body: { name: 'Slow', connection_type: 'internal', query_text: SLOW_SQL },
  });
  expect(created.status).toBe(201);
  return { t, token };
}

/** Backends of the test database running the slow query (other than this look-up). */
async function runningSlow(t: TestApp): Promise<number> {
  const { rows } = await t.platform.pool.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%generate_series(1, 20000000000::bigint)%' AND pid <> pg_backend_pid()`,
  );
  return rows[0].n as number;
}

async function waitUntil(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting: ${what}`);
}

describe('deadline', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    ({ t, token } = await setUp({ REQUEST_TIMEOUT_MS: '2000' }));
  }, 240_000);
  afterAll(() => t.close());

  test('a query past the request deadline is cancelled and answers 504 timeout naming REQUEST_TIMEOUT_MS', async () => {
    const res = await t.call('POST', `${BASE}slow/execute/`, { host: HOST, token, body: { params: {} } });
    expect({ status: res.status, text: res.text }).toEqual({ status: 504, text: expect.stringContaining('"timeout"') });
    expect(res.text).toContain('REQUEST_TIMEOUT_MS');
    expect(await runningSlow(t)).toBe(0);
    // The stopped run is in the execution log; the process serves the next request normally.
    const log = await t.call('GET', `${BASE}slow/executions/`, { host: HOST, token });
    expect(log.status).toBe(200);
    expect(log.text).toContain('"error_code":"timeout"');
  }, 240_000);

  test('the same over GraphQL: the error carries extensions.code "timeout"', async () => {
    const res = await t.call('POST', '/graphql', {
      host: HOST,
      token,
      body: { query: 'mutation { executeAnalyticsQuery(app: "web", slug: "slow") { total } }' },
    });
    const errors = (res.body as { errors?: { extensions?: { code?: string }; message: string }[] }).errors;
    expect(errors?.[0]).toMatchObject({ extensions: { code: 'timeout' }, message: expect.stringContaining('REQUEST_TIMEOUT_MS') });
    expect(await runningSlow(t)).toBe(0);
  }, 240_000);
});

describe('client disconnect', () => {
  let t: TestApp;
  let token: string;
  let port: number;
  beforeAll(async () => {
    ({ t, token } = await setUp({ REQUEST_TIMEOUT_MS: '3600000' }));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  }, 240_000);
  afterAll(() => t.close());

  test('the running query is cancelled when the client goes away', async () => {
    const body = JSON.stringify({ params: {} });
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `${BASE}slow/execute/`,
      headers: {
        host: HOST,
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('error', () => undefined);
    req.end(body);
    await waitUntil('the slow query runs', async () => (await runningSlow(t)) === 1);
    req.destroy();
    await waitUntil('the slow query is cancelled', async () => (await runningSlow(t)) === 0);
    expect((await t.call('GET', BASE, { host: HOST, token })).status).toBe(200);
  }, 240_000);
});
