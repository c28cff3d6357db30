// GraphQL operations are bounded before they run (issue 10 items 2 and 5): aliases, depth,
// tokens and estimated cost answer 400 with a clear code; an unknown operationName and a
// subscription answer 400; each mutation counts against the write rate limit (429 throttled).
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'shop.limits.test';
let t: TestApp;
let token: string;

const gql = (body: unknown, method = 'POST') =>
  method === 'GET'
    ? t.call('GET', `/graphql?query=${encodeURIComponent((body as { query: string }).query)}`, {
        token,
        host: HOST,
        headers: { 'apollo-require-preflight': 'true' },
      })
    : t.call('POST', '/graphql', { token, host: HOST, body });

beforeAll(async () => {
  t = await startTestApp({
    GRAPHQL_MAX_ALIASES: '5',
    GRAPHQL_MAX_DEPTH: '6',
    GRAPHQL_MAX_TOKENS: '400',
    GRAPHQL_MAX_COST: '3000',
    RATE_LIMIT_WRITE: '3/minute',
  });
  const owner = await t.createUser();
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'limits-org', owner.id);
  const site = await insertSite(t.platform, org.id, 'limits-site', HOST);
  await insertApp(t.platform, site.id, 'web');
});
afterAll(() => t.close());

function expectRefused(res: { status: number; body: any }, code: string) {
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].extensions).toMatchObject({ code, status: 400 });
}

test('too many aliases: 400 too_many_aliases, before anything runs', async () => {
  const fields = Array.from({ length: 6 }, (_, i) => `a${i}: me { id }`).join(' ');
  const res = await gql({ query: `{ ${fields} }` });
  expectRefused(res, 'too_many_aliases');
  expect(res.body.errors[0].extensions.details).toEqual({ limit: 5, value: 6 });
  // Within the limit: answered.
  const ok = await gql({ query: `{ ${fields.split(' a5:')[0]} }` });
  expect(ok.status).toBe(200);
  expect(ok.body.data.a0.id).toBeDefined();
});

test('aliases hidden in fragments count too, once per spread', async () => {
  const res = await gql({ query: 'query { me { ...F } x: me { ...F } } fragment F on User { a: id b: id c: id }' });
  expectRefused(res, 'too_many_aliases');
});

test('too deep: 400 too_deep; GraphiQL-style introspection still passes', async () => {
  const deep = '{ organizations { items { sites { items { domains { items { site { organization { id } } } } } } } } }';
  expectRefused(await gql({ query: deep }), 'too_deep');
  const introspection = `{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name ofType { name } } } } } } } } }`;
  const ok = await gql({ query: introspection });
  expect(ok.status).toBe(200);
  expect(ok.body.errors).toBeUndefined();
});

test('too many tokens: 400 too_many_tokens', async () => {
  const query = `{ ${Array.from({ length: 200 }, () => 'me { id }').join(' ')} }`;
  expectRefused(await gql({ query }), 'too_many_tokens');
});

test('too costly: 400 too_costly (lists multiply their selection)', async () => {
  const query = '{ organizations(pageSize: 100) { items { members(pageSize: 100) { items { id username } } } } }';
  const res = await gql({ query });
  expectRefused(res, 'too_costly');
  expect(res.body.errors[0].extensions.details.limit).toBe(3000);
  const cheap = await gql({ query: '{ organizations(pageSize: 10) { items { members(pageSize: 10) { items { id username } } } } }' });
  expect(cheap.status).toBe(200);
});

test('limits apply to GET and to every operation of a batch', async () => {
  const fields = Array.from({ length: 6 }, (_, i) => `a${i}: me { id }`).join(' ');
  expectRefused(await gql({ query: `{ ${fields} }` }, 'GET'), 'too_many_aliases');
  expectRefused(await gql([{ query: '{ me { id } }' }, { query: `{ ${fields} }` }]), 'too_many_aliases');
});

test('an unknown operationName: 400 invalid', async () => {
  const res = await gql({ query: 'query A { me { id } }', operationName: 'B' });
  expectRefused(res, 'invalid');
  expect(res.body.errors[0].message).toMatch(/no operation named "B"/);
});

test('a subscription: 400 invalid', async () => {
  const res = await gql({ query: 'subscription S { me { id } }' });
  expectRefused(res, 'invalid');
  expect(res.body.errors[0].message).toMatch(/Subscriptions/);
});

test('each mutation counts against the write limit; over it the whole operation is refused with 429 throttled', async () => {
  const create = (slug: string) => `m${slug}: createApp(input: { name: "App ${slug}" }) { slug }`;
  const two = await gql({ query: `mutation { ${create('1')} ${create('2')} }` });
  expect(two.status).toBe(200);
  expect(two.body.errors).toBeUndefined();
  expect(two.headers['x-ratelimit-remaining']).toBe('1');
  // Two more do not fit in the one write left: nothing runs.
  const over = await gql({ query: `mutation { ${create('3')} ${create('4')} }` });
  expect(over.status).toBe(429);
  expect(over.headers['retry-after']).toBeDefined();
  expect(over.body.errors[0].extensions).toMatchObject({ code: 'throttled', status: 429 });
  const apps = await gql({ query: '{ apps { items { slug } } }' });
  expect(apps.body.data.apps.items.map((a: { slug: string }) => a.slug).sort()).toEqual(['app-1', 'app-2', 'web']);
  // Queries are not writes.
  expect((await gql({ query: '{ me { id } }' })).status).toBe(200);
});
