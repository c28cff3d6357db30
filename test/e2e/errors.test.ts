// Client mistakes answer a clear 4xx in the console envelope {detail, code, status_code}:
// never a 500, never a stack trace (issue item 12).
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../gateway/app.js';
import { registerRestRoutes } from '../../gateway/rest/register.js';
import type { RouteSpec } from '../../subgraphs/core/rest.js';
import { startTestApp, type TestApp } from '../support/app.js';

const BODY_LIMIT = 2048;

// A JSON route of our own, so body parsing is tested whatever routes the table holds today.
const echo: RouteSpec = {
  method: 'POST',
  path: '/_test/echo/',
  scope: 'console',
  auth: 'optional',
  module: 'test',
  summary: 'fixture: echoes the JSON body',
  handler: async (_ctx, input) => ({ received: input.body }),
};

interface Res {
  status: number;
  body: any;
  text: string;
  headers: Record<string, unknown>;
}

let t: TestApp;
let app: FastifyInstance;

async function send(method: string, url: string, payload?: string | Buffer, headers: Record<string, string> = {}): Promise<Res> {
  const res = await app.inject({ method: method as 'POST', url, payload, headers: { host: 'localhost', ...headers } });
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, body, text: res.body, headers: res.headers };
}

function expectEnvelope(res: Res, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.body).toEqual(expect.objectContaining({ detail: expect.any(String), code, status_code: status }));
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.text).not.toMatch(/\bat .+\.(ts|js):\d+/); // no stack frames
  expect(res.text).not.toMatch(/FST_ERR|SyntaxError/); // no framework internals
}

beforeAll(async () => {
  t = await startTestApp({ BODY_LIMIT_BYTES: String(BODY_LIMIT) });
  app = await buildApp(t.platform);
  registerRestRoutes(app, [echo]);
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await t?.close();
});

test('the fixture route works with good JSON', async () => {
  const res = await send('POST', '/api/_test/echo/', '{"a":1}', { 'content-type': 'application/json' });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({ received: { a: 1 } });
});

test.each([
  ['truncated object', '{"name": "Acme"'],
  ['trailing comma', '{"name": "Acme",}'],
  ['not JSON at all', 'name=Acme'],
  ['single quotes', "{'name': 'Acme'}"],
])('malformed JSON (%s) answers 400 parse_error', async (_label, payload) => {
  const res = await send('POST', '/api/_test/echo/', payload, { 'content-type': 'application/json' });
  expectEnvelope(res, 400, 'parse_error');
});

test('an empty body declared as JSON answers 400', async () => {
  const res = await send('POST', '/api/_test/echo/', '', { 'content-type': 'application/json' });
  expectEnvelope(res, 400, 'parse_error');
});

test('a prototype-poisoning body is refused, not merged', async () => {
  const res = await send('POST', '/api/_test/echo/', '{"__proto__": {"isAdmin": true}}', { 'content-type': 'application/json' });
  expectEnvelope(res, 400, 'parse_error');
});

test.each([['text/plain'], ['application/xml'], ['application/x-www-form-urlencoded']])(
  'a %s body to a JSON route answers 415',
  async (type) => {
    const res = await send('POST', '/api/_test/echo/', 'name=Acme', { 'content-type': type });
    expectEnvelope(res, 415, 'unsupported_media_type');
    expect(res.body.detail).toContain(type);
  },
);

test('a body over BODY_LIMIT_BYTES answers 413', async () => {
  const big = JSON.stringify({ blob: 'x'.repeat(BODY_LIMIT * 2) });
  const res = await send('POST', '/api/_test/echo/', big, { 'content-type': 'application/json' });
  expectEnvelope(res, 413, 'payload_too_large');
  expect(res.body.detail).toContain(String(BODY_LIMIT));
});

test('a Content-Length that does not match the body answers 400', async () => {
  const res = await send('POST', '/api/_test/echo/', '{"a":1}', { 'content-type': 'application/json', 'content-length': '100' });
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expectEnvelope(res, res.status, res.body.code);
});

test.each([
  ['GET', '/api/no-such-thing/'],
  ['GET', '/nowhere'],
  ['POST', '/api/organizations/acme/nothing-here/'],
  ['DELETE', '/api/cloud/does-not-exist/'],
])('unknown route %s %s answers 404 not_found', async (method, url) => {
  const res = await send(method, url);
  expectEnvelope(res, 404, 'not_found');
});

test('an unknown route with a bad JSON body is still a 404 or a 400, not a 500', async () => {
  const res = await send('POST', '/api/no-such-thing/', '{oops', { 'content-type': 'application/json' });
  expect([400, 404]).toContain(res.status);
  expectEnvelope(res, res.status, res.body.code);
});

test.each([
  ['DELETE', '/api/permissions/'],
  ['PATCH', '/api/_test/echo/'],
  ['PUT', '/api/cloud/permissions/'],
])('a known path with another method (%s %s) answers 405 with Allow', async (method, url) => {
  const res = await send(
    method,
    url,
    method === 'DELETE' ? undefined : '{}',
    method === 'DELETE' ? {} : { 'content-type': 'application/json' },
  );
  expectEnvelope(res, 405, 'method_not_allowed');
  expect(String(res.headers.allow)).toMatch(/GET|POST/);
});

test('a path parameter longer than the router allows is a 4xx', async () => {
  const res = await send('GET', `/api/organizations/${'a'.repeat(600)}/`);
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
});

test('a site-scoped path on a host that serves no site answers tenant_not_found', async () => {
  const res = await send('GET', '/api/users/me/', undefined, { host: 'nobody.example.test' });
  expectEnvelope(res, 404, 'tenant_not_found');
});

test('a malformed bearer token answers 401, not 500', async () => {
  const res = await send('GET', '/api/users/me/', undefined, { authorization: 'Bearer not.a.jwt' });
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ status_code: 401, code: expect.any(String) });
});

test('nothing above wrote an unhandled-error log line', () => {
  expect(t.logs.filter((l) => l.includes('unhandled error'))).toEqual([]);
});
