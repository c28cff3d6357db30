// /graphql as an endpoint: the IDE and Apollo Sandbox for browsers, internal errors that leak nothing,
// and the subgraph servers of the distributed mode, which trust only the signed context.
import http from 'node:http';
import { signContextToken } from '../../subgraphs/core/graphql/context-token.js';
import type { RequestContext } from '../../subgraphs/core/context.js';
import { startGraphqlWorld, type GraphqlWorld } from './graphql-fixtures.js';

describe('in-process', () => {
  let w: GraphqlWorld;
  beforeAll(async () => {
    w = await startGraphqlWorld('in-process');
  });
  afterAll(() => w.close());

  test('GET /graphql from a browser serves the offline IDE; ?ide=sandbox serves Apollo Sandbox', async () => {
    const res = await w.t.call('GET', '/graphql', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('AltairGraphQL.init(');
    const sandbox = await w.t.call('GET', '/graphql?ide=sandbox', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(sandbox.status).toBe(200);
    expect(sandbox.text).toContain('embeddableSandbox');
    expect(sandbox.text).toContain('embeddable-sandbox.cdn.apollographql.com');
    expect(sandbox.text).toContain('"includeCookies":true');
  });

  test('Sandbox is served on a tenant host too', async () => {
    const res = await w.t.call('GET', '/graphql?ide=sandbox', { host: 'shop.localhost', headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('EmbeddedSandbox');
  });

  test('an unknown host answers tenant_not_found before GraphQL runs', async () => {
    const res = await w.gql('{ me { id } }', { host: 'nowhere.example' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('tenant_not_found');
  });

  test('an internal error leaks neither message nor stack, and is logged', async () => {
    const pool = w.t.platform.pool;
    const original = pool.query;
    // Only the organizations list fails: the edge's own queries (authentication) still work.
    const sqlOf = (q: unknown) => (typeof q === 'string' ? q : ((q as { text?: string })?.text ?? ''));
    pool.query = ((text: unknown, ...rest: unknown[]) =>
      sqlOf(text).includes('FROM organizations o')
        ? Promise.reject(new Error('connection to db-7 lost'))
        : (original as (...a: unknown[]) => unknown).call(pool, text, ...rest)) as typeof pool.query;
    let res;
    try {
      res = await w.gql('{ organizations { total } }', { token: w.t.tokenFor(w.owner) });
    } finally {
      pool.query = original;
    }
    expect(res.body.errors).toEqual([
      { message: 'Internal server error.', path: ['organizations'], extensions: { code: 'internal_error', status: 500 } },
    ]);
    expect(res.text).not.toContain('db-7');
    expect(w.t.logs.some((l) => l.includes('graphql internal error') && l.includes('db-7'))).toBe(true);
  });
});

describe('distributed', () => {
  let w: GraphqlWorld;
  beforeAll(async () => {
    w = await startGraphqlWorld('distributed');
  });
  afterAll(() => w.close());

  const post = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: '{ me { id } }' }),
    });
  const tenancy = () => w.servers.find((s) => s.name === 'tenancy')!;
  const ctxFor = (fields: Partial<RequestContext>) =>
    ({
      requestId: 'direct',
      principal: { kind: 'anonymous' },
      site: null,
      host: 'localhost',
      baseUrl: 'http://localhost',
      ...fields,
    }) as RequestContext;

  test('a subgraph server refuses a request without the signed context', async () => {
    const res = await post(tenancy().url);
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.errors[0].extensions).toEqual({ code: 'not_authenticated', status: 401 });
  });

  test('a subgraph server refuses a context signed with another secret', async () => {
    const res = await post(tenancy().url, { 'x-platform-context': signContextToken(ctxFor({}), 'not-the-secret') });
    expect(res.status).toBe(401);
  });

  test('a subgraph server trusts a validly signed context', async () => {
    const secret = w.t.platform.keys.subgraphSecret;
    const anonymous = await post(tenancy().url, { 'x-platform-context': signContextToken(ctxFor({}), secret) });
    expect(anonymous.status).toBe(200);
    expect((await anonymous.json()).errors[0].extensions.code).toBe('not_authenticated');
    const principal = {
      kind: 'user',
      via: 'jwt',
      userId: w.owner.id,
      uuid: w.owner.uuid,
      username: w.owner.username,
      isStaff: false,
      isSuperuser: false,
    } as const;
    const signed = await post(tenancy().url, { 'x-platform-context': signContextToken(ctxFor({ principal }), secret) });
    expect((await signed.json()).data.me.id).toBe(w.owner.uuid);
  });

  test('/readyz checks every subgraph the gateway routes to', async () => {
    const res = await w.t.call('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ database: 'ok', ...Object.fromEntries(w.servers.map((s) => [`subgraph:${s.name}`, 'ok'])) });
  });

  test('a subgraph that cannot be reached answers 503 service_unavailable without details', async () => {
    await w.servers.find((s) => s.name === 'events')!.close();
    // Readiness names the subgraph that is down; the others stay ok.
    const ready = await w.t.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'unavailable', detail: 'Not ready: subgraph:events down.' });
    expect(ready.body.checks).toMatchObject({ database: 'ok', 'subgraph:events': 'down', 'subgraph:tenancy': 'ok' });
    // A query that only the missing subgraph answers: HTTP 503 with the platform's code.
    const only = await w.gql('{ events }');
    expect(only.status).toBe(503);
    expect(only.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'service_unavailable', status: 503 } })]);
    const res = await w.gql('{ app(slug: "shop") { name functions { total } } }', { token: w.t.tokenFor(w.owner), host: 'shop.localhost' });
    expect(res.body.errors).toHaveLength(1);
    // A subgraph that cannot be reached is unavailable (503), not the client's fault, and the
    // answer says nothing about where it runs.
    expect(res.body.errors[0].extensions).toEqual({ code: 'service_unavailable', status: 503 });
    expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|stack/);
  });

  test('a subgraph behind a proxy that answers 502 (no healthy backend): 503 service_unavailable, /readyz down', async () => {
    // The events subgraph was closed above: a proxy now listens on its port, without a backend.
    const events = w.servers.find((s) => s.name === 'events')!;
    const proxy = http.createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>'));
    await new Promise<void>((resolve) => proxy.listen(events.port, '127.0.0.1', resolve));
    try {
      const res = await w.gql('{ events }');
      expect(res.status).toBe(503);
      expect(res.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'service_unavailable', status: 503 } })]);
      expect(res.text).not.toMatch(/Bad Gateway|127\.0\.0\.1/);
      const ready = await w.t.call('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks['subgraph:events']).toBe('down');
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
