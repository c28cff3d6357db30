// Errors the platform raises before a module handles the request keep the platform envelope
// {detail, code, status_code} on every route of the route table, module routes included
// (issue 10 item 11; DECISIONS §2 and §4).
import { ROUTES } from '../../gateway/rest/route-table.js';
import { mountedPaths, type RouteSpec } from '../../subgraphs/core/rest.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg, insertSite } from '../support/tenants.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_STANDARD: '1/minute' });
  const owner = await t.createUser();
  const org = await insertOrg(t.platform, 'acme', owner.id);
  await insertSite(t.platform, org.id, 'shop', 'shop.example.test');
});
afterAll(() => t.close());

/** A concrete URL for a route: every `:param` filled with a plausible value. */
const urlOf = (spec: RouteSpec) => mountedPaths(spec)[0].replace(/:[A-Za-z_]+/g, 'x1');

const envelope = (code: string, status: number) => ({ detail: expect.any(String), code, status_code: status });

// Each request below is refused before the rate limiter counts it, except the throttled ones,
// which come from distinct client addresses (anonymous callers are counted per address).
let ip = 0;
const nextIp = () => `10.9.${Math.floor(++ip / 250)}.${ip % 250}`;

async function call(spec: RouteSpec, opts: { host?: string; headers?: Record<string, string> }) {
  const res = await t.app.inject({
    method: spec.method,
    url: urlOf(spec),
    remoteAddress: nextIp(),
    headers: {
      host: opts.host ?? 'localhost',
      ...(spec.method === 'GET' || spec.method === 'DELETE' ? {} : { 'content-type': 'application/json' }),
      ...opts.headers,
    },
    payload: spec.method === 'GET' || spec.method === 'DELETE' ? undefined : '{}',
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

test('the table has module routes with their own envelope (the case this guards)', () => {
  expect(ROUTES.some((r) => r.module === 'data' || r.module === 'secrets')).toBe(true);
});

test('tenant_required: every site route on a platform host', async () => {
  for (const spec of ROUTES.filter((r) => r.scope === 'site')) {
    const res = await call(spec, {});
    expect({ route: `${spec.method} ${spec.path}`, ...res }).toEqual({
      route: `${spec.method} ${spec.path}`,
      status: 400,
      body: envelope('tenant_required', 400),
    });
  }
});

test('tenant_not_found: every route on an unknown host', async () => {
  for (const spec of ROUTES) {
    const res = await call(spec, { host: 'nowhere.example.test' });
    expect({ route: `${spec.method} ${spec.path}`, ...res }).toEqual({
      route: `${spec.method} ${spec.path}`,
      status: 404,
      body: envelope('tenant_not_found', 404),
    });
  }
});

test('authentication_failed: every route with a wrong API key or an unsupported scheme', async () => {
  for (const spec of ROUTES) {
    const host = spec.scope === 'site' ? 'shop.example.test' : 'localhost';
    for (const authorization of ['Api-Key nope', 'Basic dXNlcjpwYXNz']) {
      const res = await call(spec, { host, headers: { authorization } });
      expect({ route: `${spec.method} ${spec.path}`, ...res }).toEqual({
        route: `${spec.method} ${spec.path}`,
        status: 401,
        body: envelope('authentication_failed', 401),
      });
    }
  }
});

test('not_authenticated: every route that needs credentials, called without', async () => {
  const required = ROUTES.filter((r) => r.auth === 'required');
  expect(required.length).toBeGreaterThan(10);
  for (const spec of required) {
    const host = spec.scope === 'site' ? 'shop.example.test' : 'localhost';
    const res = await call(spec, { host });
    expect({ route: `${spec.method} ${spec.path}`, ...res }).toEqual({
      route: `${spec.method} ${spec.path}`,
      status: 401,
      body: envelope('not_authenticated', 401),
    });
  }
});

test('throttled: every route once its caller is over the standard limit', async () => {
  for (const spec of ROUTES) {
    const host = spec.scope === 'site' ? 'shop.example.test' : 'localhost';
    const remoteAddress = nextIp();
    const send = () => t.app.inject({ method: spec.method, url: urlOf(spec), remoteAddress, headers: { host } });
    await send();
    const res = await send();
    expect({ route: `${spec.method} ${spec.path}`, status: res.statusCode, body: JSON.parse(res.body) }).toEqual({
      route: `${spec.method} ${spec.path}`,
      status: 429,
      body: envelope('throttled', 429),
    });
  }
});
