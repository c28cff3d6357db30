// Isolation between sites (issue 5 item 9): no secret, type, tag or history of site A is
// reachable from site B's host, by key, with any credential — B's owner's JWT, an API key of
// one of B's apps, or none — and A's credentials do not work on B's host either. API keys of
// one app do not reach another app's tier.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { restIsolationTests, type IsolationWorlds } from '../support/matrix/isolation.js';
import { buildWorld } from '../support/matrix/world.js';
import { startPlatformIn } from './graphql-fixtures.js';

const A = 'a.iso-secrets.test';
const B = 'b.iso-secrets.test';

let t: TestApp;
let ownerA: User, ownerB: User;
let tokA: string, tokB: string;
let keyA: string, keyB: string, keyA2: string;

const apiKey = async (host: string, token: string, app: string) =>
  (await t.call('POST', `/api/apps/${app}/api-keys/`, { token, host, body: { name: 'k' } })).body.key as string;
const withKey = (key: string) => ({ authorization: `Api-Key ${key}` });

beforeAll(async () => {
  t = await startTestApp();
  [ownerA, ownerB] = await Promise.all([t.createUser(), t.createUser()]);
  [tokA, tokB] = [ownerA, ownerB].map((u) => t.tokenFor(u));
  const orgA = await insertOrg(t.platform, 'org-a', ownerA.id);
  const orgB = await insertOrg(t.platform, 'org-b', ownerB.id);
  const siteA = await insertSite(t.platform, orgA.id, 'site-a', A);
  const siteB = await insertSite(t.platform, orgB.id, 'site-b', B);
  await insertApp(t.platform, siteA.id, 'app-a');
  await insertApp(t.platform, siteA.id, 'app-a2');
  await insertApp(t.platform, siteB.id, 'app-b');
  [keyA, keyA2, keyB] = await Promise.all([apiKey(A, tokA, 'app-a'), apiKey(A, tokA, 'app-a2'), apiKey(B, tokB, 'app-b')]);

  const a = (method: string, url: string, body?: unknown) => t.call(method, url, { token: tokA, host: A, body });
  expect((await a('POST', '/api/secret-types/', { name: 'Open A', sensitivity_level: 'public', schema: { type: 'object' } })).status).toBe(
    201,
  );
  expect((await a('POST', '/api/tags/', { name: 'only-a' })).status).toBe(201);
  expect(
    (await a('POST', '/api/secrets/', { secret_type: 'json', key: 'shared', value: { v: 'site-a-private' }, tags: ['only-a'] })).status,
  ).toBe(201);
  expect((await a('POST', '/api/secrets/', { secret_type: 'open-a', key: 'open', value: { v: 'site-a-public' } })).status).toBe(201);
  expect((await a('POST', '/api/apps/app-a/secrets/', { key: 'app-only', type_slug: 'json', value: { v: 'app-a-private' } })).status).toBe(
    201,
  );
});
afterAll(() => t.close());

const CREDENTIALS: [string, () => Record<string, string>][] = [
  ['owner of B (JWT)', () => ({ authorization: `Bearer ${tokB}` })],
  ['API key of an app of B', () => withKey(keyB)],
  ['anonymous', () => ({})],
  ["owner of A (JWT) on B's host", () => ({ authorization: `Bearer ${tokA}` })],
  ["API key of A on B's host", () => withKey(keyA)],
];

describe.each(CREDENTIALS)("from B's host as %s", (_name, headers) => {
  const onB = (method: string, url: string, body?: unknown) => t.call(method, url, { host: B, headers: headers(), body });

  test("A's secrets, types, tags and history are not reachable", async () => {
    const responses = await Promise.all([
      onB('GET', '/api/secrets/shared/'),
      onB('GET', '/api/secrets/open/'),
      onB('GET', '/api/secrets/app-only/?app=app-a'),
      onB('GET', '/api/secrets/shared/history/'),
      onB('GET', '/api/secrets/?app=app-a'),
      onB('GET', '/api/secret-types/open-a/'),
      onB('GET', '/api/tags/only-a/'),
      onB('PUT', '/api/secrets/shared/', { secret_type: 'json', value: { v: 'overwrite' } }),
      onB('DELETE', '/api/secrets/shared/'),
      onB('POST', '/api/apps/app-a/secrets/', { key: 'x', type_slug: 'json', value: {} }),
    ]);
    for (const r of responses) {
      expect([401, 403, 404]).toContain(r.status);
      expect(r.text).not.toMatch(/site-a-|app-a-private|only-a|Open A/);
    }
    // B's own list, where it answers at all (B's credentials), shows nothing of A.
    const list = await onB('GET', '/api/secrets/');
    expect([200, 401, 403]).toContain(list.status);
    if (list.status === 200) expect(list.body.count).toBe(0);
    expect(list.text).not.toMatch(/site-a-|shared|open/);
  });
});

test('A is unchanged after every attempt from B', async () => {
  const got = await t.call('GET', '/api/secrets/shared/', { token: tokA, host: A });
  expect(got.body).toMatchObject({ key: 'shared', value: { v: 'site-a-private' } });
  const h = await t.call('GET', '/api/secrets/shared/history/', { token: tokA, host: A });
  expect(h.body.total_count).toBe(1);
});

test("an API key reads its own app's tier and the site tier, never a sibling app's tier", async () => {
  const own = await t.call('GET', '/api/secrets/app-only/?app=app-a', { host: A, headers: withKey(keyA) });
  expect(own.status).toBe(200);
  expect(own.body.value).toEqual({ v: 'app-a-private' });
  expect((await t.call('GET', '/api/secrets/shared/', { host: A, headers: withKey(keyA2) })).status).toBe(200);
  const sibling = await t.call('GET', '/api/secrets/app-only/?app=app-a', { host: A, headers: withKey(keyA2) });
  expect(sibling.status).toBe(404);
  expect(sibling.text).not.toContain('app-a-private');
  // An API key writes only its own app's tier.
  const site = await t.call('POST', '/api/secrets/', {
    host: A,
    headers: withKey(keyA),
    body: { secret_type: 'json', key: 'k', value: {} },
  });
  expect(site.status).toBe(403);
  const mine = await t.call('POST', '/api/apps/app-a/secrets/', {
    host: A,
    headers: withKey(keyA),
    body: { key: 'k', type_slug: 'json', value: {} },
  });
  expect(mine.status).toBe(201);
  const h = await t.call('GET', '/api/secrets/k/history/?app=app-a', { host: A, headers: withKey(keyA) });
  expect(h.body.results[0].user).toMatch(/^api_key:\d+$/);
});

test("GraphQL: B's owner cannot list A's secrets through Site.secrets", async () => {
  const query = '{ site(slug: "site-a") { secrets { total items { key } } } }';
  for (const host of [A, B]) {
    const res = await t.call('POST', '/graphql', { token: tokB, host, body: { query } });
    expect(res.text).not.toMatch(/shared|app-only|site-a-/);
    expect(res.body.data?.site ?? null).toBeNull();
  }
  const own = await t.call('POST', '/graphql', { token: tokA, host: A, body: { query } });
  expect(own.body.data.site.secrets.total).toBe(4); // shared, open, app-only, and k (API key test)
});

// Probes that reach the check (issue 16 item 3): each a complete request built by the
// permission matrix's fixtures (test/support/matrix/secrets.ts) against a victim tenant, sent by
// another tenant's owner (404) and then by the victim's owner (must succeed), route by route.
describe.each(['in-process'] as const)('probes that reach the check (%s)', (mode) => {
  let platform: Awaited<ReturnType<typeof startPlatformIn>>;
  let worlds: IsolationWorlds;
  beforeAll(async () => {
    platform = await startPlatformIn(mode);
    worlds = { t: platform.t, attacker: await buildWorld(platform.t, 'atk'), victim: await buildWorld(platform.t, 'vic') };
  }, 180_000);
  afterAll(() => platform?.close());
  describe('REST: every object route', () => restIsolationTests('secrets', () => worlds));
});
