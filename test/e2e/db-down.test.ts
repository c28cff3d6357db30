// While the database is unreachable, REST answers 503 service_unavailable (never 500) and
// /readyz says the database is down; when it is back, requests succeed again (issue 10 item 5).
// The platform reaches PostgreSQL through a TCP proxy that the test cuts.
import { startTestApp, type TestApp } from '../support/app.js';
import { adminUrl } from '../support/db.js';
import { insertOrg, insertSite } from '../support/tenants.js';
import { startTcpProxy, viaProxy, type TcpProxy } from '../support/tcp-proxy.js';

let t: TestApp;
let proxy: TcpProxy;
let token: string;

beforeAll(async () => {
  const admin = new URL(adminUrl());
  proxy = await startTcpProxy(admin.hostname, Number(admin.port || 5432));
  t = await startTestApp({ DB_CONNECT_TIMEOUT_MS: '1000' }, { databaseUrl: (url) => viaProxy(url, proxy) });
  const owner = await t.createUser({ isStaff: true });
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'acme', owner.id);
  await insertSite(t.platform, org.id, 'shop', 'shop.down.test');
});
afterAll(async () => {
  await proxy.restore().catch(() => undefined);
  await t.close();
  await proxy.close();
});

const SERVICE_UNAVAILABLE = { detail: expect.any(String), code: 'service_unavailable', status_code: 503 };

test('database down: 503 service_unavailable on console and module routes, /readyz 503 naming it; back up: 200', async () => {
  expect((await t.call('GET', '/readyz')).status).toBe(200);
  expect((await t.call('GET', '/api/organizations/', { token })).status).toBe(200);

  await proxy.cut();
  const requests: [string, string, { host?: string; body?: unknown }][] = [
    ['GET', '/api/organizations/', {}],
    ['POST', '/api/organizations/', { body: { name: 'New' } }],
    ['GET', '/api/users/', {}],
    ['GET', '/api/apps/', { host: 'shop.down.test' }],
    ['GET', '/api/secrets/', { host: 'shop.down.test' }],
    ['GET', '/api/apps/store/datatables/', { host: 'shop.down.test' }],
  ];
  for (const [method, url, opts] of requests) {
    const res = await t.call(method, url, { token, ...opts });
    expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 503, body: SERVICE_UNAVAILABLE });
  }
  // Sign-in needs the database too.
  const login = await t.call('POST', '/api/auth/jwt/token/', { body: { username: 'nobody', password: 'whatever-it-is' } });
  expect(login.status).toBe(503);

  const ready = await t.call('GET', '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body).toMatchObject({ status: 'unavailable', checks: { database: 'down' } });
  expect(ready.body.detail).toContain('database');
  // Nothing was logged as an unhandled error.
  expect(t.logs.filter((l) => l.includes('unhandled error'))).toEqual([]);

  await proxy.restore();
  expect((await t.call('GET', '/readyz')).status).toBe(200);
  expect((await t.call('GET', '/api/organizations/', { token })).status).toBe(200);
});
