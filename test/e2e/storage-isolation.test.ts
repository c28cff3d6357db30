// Storage access and isolation (issue 13 item 7): another site's buckets, object uuids, paths and
// downloads are unreachable from a site's host with any credential, while the owner's control
// request succeeds; private and public buckets, object-level visibility, storage:* grants and
// the app's API key.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { send } from '../support/storage.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { graphqlIsolationTests, restIsolationTests, type IsolationWorlds } from '../support/matrix/isolation.js';
import { startMatrixGraph } from '../support/matrix/storage.js';
import { buildWorld } from '../support/matrix/world.js';
import { startPlatformIn } from './graphql-fixtures.js';

const A = 'a.iso-storage.test';
const B = 'b.iso-storage.test';
let t: TestApp;
let ownerA: User, ownerB: User, reader: User, stranger: User;
let tokA: string, tokB: string, tokReader: string, tokStranger: string;
let keyA: string, keyB: string, keyA2: string;
let objUuid: string;
let siteAId: number;

const apiKey = async (host: string, token: string, app: string) =>
  (await t.call('POST', `/api/apps/${app}/api-keys/`, { token, host, body: { name: 'k' } })).body.key as string;
const auth = (h: { token?: string; key?: string }): Record<string, string> =>
  h.token ? { authorization: `Bearer ${h.token}` } : h.key ? { authorization: `Api-Key ${h.key}` } : {};
const req = (
  host: string,
  method: string,
  url: string,
  who: { token?: string; key?: string },
  payload?: unknown,
  type = 'application/json',
) =>
  send(t, method, url, {
    host,
    headers: { ...auth(who), ...(payload !== undefined ? { 'content-type': type } : {}) },
    payload:
      payload === undefined ? undefined : typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
  });

const APP_A = '/api/apps/app-a/storage/buckets/';

beforeAll(async () => {
  t = await startTestApp();
  ownerA = await t.createUser();
  ownerB = await t.createUser();
  reader = await t.createUser();
  stranger = await t.createUser();
  [tokA, tokB, tokReader, tokStranger] = [ownerA, ownerB, reader, stranger].map((u) => t.tokenFor(u));
  const orgA = await insertOrg(t.platform, 'org-sa', ownerA.id);
  const orgB = await insertOrg(t.platform, 'org-sb', ownerB.id);
  const siteA = await insertSite(t.platform, orgA.id, 'site-sa', A);
  siteAId = siteA.id;
  const siteB = await insertSite(t.platform, orgB.id, 'site-sb', B);
  await insertApp(t.platform, siteA.id, 'app-a');
  await insertApp(t.platform, siteA.id, 'app-a2');
  await insertApp(t.platform, siteB.id, 'app-b');
  keyA = await apiKey(A, tokA, 'app-a');
  keyA2 = await apiKey(A, tokA, 'app-a2');
  keyB = await apiKey(B, tokB, 'app-b');
  await t.platform.pool.query(
    `INSERT INTO object_permissions (user_id, permission, object_type, object_id) VALUES ($1, 'storage:read', 'site', $2)`,
    [reader.id, siteA.id],
  );
  for (const [slug, visibility] of [
    ['secret', 'private'],
    ['open', 'public'],
  ]) {
    expect((await req(A, 'POST', APP_A, { token: tokA }, { name: slug, slug, visibility })).status).toBe(201);
  }
  const up = await req(A, 'PUT', `${APP_A}secret/objects/doc/a.txt`, { token: tokA }, 'site A private', 'text/plain');
  expect(up.status).toBe(201);
  objUuid = up.body.data.uuid;
  // Site B has a bucket of the same slug, so that a wrong site filter would find something.
  expect((await req(B, 'POST', '/api/apps/app-b/storage/buckets/', { token: tokB }, { name: 'secret', slug: 'secret' })).status).toBe(201);
});
afterAll(() => t.close());

/** Every storage route with A's identifiers. */
const ROUTES = (prefix: string): [string, string, unknown?, string?][] => [
  ['GET', `${prefix}`],
  ['GET', `${prefix}secret/`],
  ['PATCH', `${prefix}secret/`, { description: 'x' }],
  ['DELETE', `${prefix}secret/`],
  ['GET', `${prefix}secret/objects/`],
  ['GET', `${prefix}secret/objects/OBJ/`],
  ['GET', `${prefix}secret/objects/OBJ/?metadata=true`],
  ['GET', `${prefix}secret/objects/doc/a.txt`],
  ['PATCH', `${prefix}secret/objects/OBJ/`, { filename: 'x.txt' }],
  ['DELETE', `${prefix}secret/objects/OBJ/`],
  ['DELETE', `${prefix}secret/object/doc/a.txt`],
  ['PUT', `${prefix}secret/objects/doc/a.txt`, 'overwrite', 'text/plain'],
  ['POST', `${prefix}secret/objects/search/`, {}],
  ['POST', `${prefix}secret/objects/copy/`, { source_path: 'doc/a.txt', destination_path: 'doc/b.txt' }],
  ['POST', `${prefix}secret/objects/move/`, { source_path: 'doc/a.txt', destination_path: 'doc/c.txt' }],
  ['POST', `${prefix}secret/objects/batch-delete/`, { paths: ['doc/a.txt'] }],
];

const fromB: [string, () => { token?: string; key?: string }][] = [
  ['owner of B', () => ({ token: tokB })],
  ['API key of B', () => ({ key: keyB })],
  ['anonymous', () => ({})],
  ["owner of A on B's host", () => ({ token: tokA })],
  ["API key of A on B's host", () => ({ key: keyA })],
];

describe.each(fromB)("from B's host as %s", (_name, who) => {
  test("A's app, buckets, objects, paths and downloads are unreachable", async () => {
    // A's app does not exist on B's host: 404 for every route and credential.
    for (const [method, url, body, type] of ROUTES(APP_A)) {
      const r = await req(B, method, url.replace('OBJ', objUuid), who(), body, type);
      // (An API key of A is not even accepted on B's host: 401.)
      expect([401, 404]).toContain(r.status);
      expect(r.raw.toString()).not.toContain('site A private');
    }
    // B's app has a bucket of the same slug: A's object uuid and path are not in it.
    const objectRoutes = ROUTES('/api/apps/app-b/storage/buckets/').filter(
      ([method, url]) => method !== 'PUT' && (url.includes('/objects/OBJ') || url.includes('doc/a.txt')),
    );
    for (const [method, url, body, type] of objectRoutes) {
      const r = await req(B, method, url.replace('OBJ', objUuid), who(), body, type);
      expect([`${method} ${url} 401`, `${method} ${url} 403`, `${method} ${url} 404`]).toContain(`${method} ${url} ${r.status}`);
      expect(r.raw.toString()).not.toContain('site A private');
      expect(r.raw.toString()).not.toContain(objUuid);
    }
  });
});

test('control: the owner of A reaches every route on its own host', async () => {
  expect((await req(A, 'GET', APP_A, { token: tokA })).status).toBe(200);
  expect((await req(A, 'GET', `${APP_A}secret/objects/${objUuid}/`, { token: tokA })).raw.toString()).toBe('site A private');
  expect((await req(A, 'GET', `${APP_A}secret/objects/doc/a.txt`, { token: tokA })).status).toBe(200);
  expect((await req(A, 'GET', `${APP_A}secret/objects/`, { token: tokA })).body.total).toBe(1);
  expect((await req(A, 'POST', `${APP_A}secret/objects/search/`, { token: tokA }, {})).body.data.count).toBe(1);
  expect(
    (await req(A, 'POST', `${APP_A}secret/objects/copy/`, { token: tokA }, { source_path: 'doc/a.txt', destination_path: 'doc/b.txt' }))
      .status,
  ).toBe(201);
  expect(
    (await req(A, 'POST', `${APP_A}secret/objects/move/`, { token: tokA }, { source_path: 'doc/b.txt', destination_path: 'doc/c.txt' }))
      .status,
  ).toBe(200);
  expect((await req(A, 'POST', `${APP_A}secret/objects/batch-delete/`, { token: tokA }, { paths: ['doc/c.txt'] })).status).toBe(200);
  expect((await req(A, 'PATCH', `${APP_A}secret/`, { token: tokA }, { description: 'mine' })).status).toBe(200);
});

describe('access on the same site', () => {
  test('private bucket: anonymous and a stranger 404 (as for nothing), storage:read reads but cannot write', async () => {
    const url = `${APP_A}secret/objects/${objUuid}/`;
    // Who cannot see the site learns nothing of what it holds (docs/storage.md "Access").
    expect((await req(A, 'GET', url, {})).status).toBe(404);
    expect((await req(A, 'GET', url, { token: tokStranger })).status).toBe(404);
    expect((await req(A, 'GET', `${APP_A}secret/objects/`, { token: tokStranger })).status).toBe(404);
    expect((await req(A, 'GET', url, { token: tokReader })).status).toBe(200);
    expect((await req(A, 'PUT', `${APP_A}secret/objects/r.txt`, { token: tokReader }, 'x', 'text/plain')).status).toBe(403);
    expect((await req(A, 'DELETE', url, { token: tokReader })).status).toBe(403);
    expect((await req(A, 'DELETE', `${APP_A}secret/`, { token: tokReader })).status).toBe(403);
    expect((await req(A, 'POST', APP_A, { token: tokReader }, { name: 'mine' })).status).toBe(403);
    // A stranger does not list the site's buckets (public ones stay readable by path).
    expect((await req(A, 'GET', APP_A, { token: tokStranger })).status).toBe(404);
  });

  test('public bucket: anonymous reads, never writes; site members write', async () => {
    expect((await req(A, 'PUT', `${APP_A}open/objects/p.txt`, { token: tokA }, 'public text', 'text/plain')).status).toBe(201);
    expect((await req(A, 'GET', `${APP_A}open/objects/p.txt`, {})).raw.toString()).toBe('public text');
    expect((await req(A, 'GET', `${APP_A}open/objects/`, {})).body.total).toBe(1);
    expect((await req(A, 'PUT', `${APP_A}open/objects/anon.txt`, {}, 'x', 'text/plain')).status).toBe(404);
    expect((await req(A, 'DELETE', `${APP_A}open/object/p.txt`, {})).status).toBe(404);
    expect((await req(A, 'PATCH', `${APP_A}open/`, {}, { visibility: 'private' })).status).toBe(404);
    // A signed-in user without access to the site does not write either.
    expect((await req(A, 'PUT', `${APP_A}open/objects/s.txt`, { token: tokStranger }, 'x', 'text/plain')).status).toBe(404);
  });

  test('object visibility overrides the bucket for reads', async () => {
    const priv = await req(A, 'PUT', `${APP_A}open/objects/hidden.txt`, { token: tokA }, 'hidden', 'text/plain');
    expect((await req(A, 'PATCH', `${APP_A}open/objects/${priv.body.data.uuid}/`, { token: tokA }, { visibility: 'private' })).status).toBe(
      200,
    );
    expect((await req(A, 'GET', `${APP_A}open/objects/hidden.txt`, {})).status).toBe(404);
    expect((await req(A, 'GET', `${APP_A}open/objects/?search=hidden`, {})).body.total).toBe(0);
    expect((await req(A, 'PATCH', `${APP_A}secret/objects/${objUuid}/`, { token: tokA }, { visibility: 'public' })).status).toBe(200);
    expect((await req(A, 'GET', `${APP_A}secret/objects/${objUuid}/`, {})).raw.toString()).toBe('site A private');
  });

  test("the app's API key has full access to its app only", async () => {
    expect((await req(A, 'PUT', `${APP_A}secret/objects/k.txt`, { key: keyA }, 'by key', 'text/plain')).status).toBe(201);
    expect((await req(A, 'GET', `${APP_A}secret/objects/k.txt`, { key: keyA })).raw.toString()).toBe('by key');
    expect((await req(A, 'GET', `${APP_A}secret/objects/k.txt`, { key: keyA2 })).status).toBe(404);
  });

  test('staff have access to private buckets', async () => {
    const staff = await t.createUser({ isStaff: true });
    expect((await req(A, 'GET', `${APP_A}secret/objects/${objUuid}/`, { token: t.tokenFor(staff) })).status).toBe(200);
    expect(siteAId).toBeGreaterThan(0);
  });
});

// Probes that reach the check (issue 16 item 3): each a complete request built by the permission
// matrix's fixtures (test/support/matrix/storage.ts: buckets, objects by uuid and by path,
// downloads, uploads, batch operations, view/edit on a document library) against a victim
// tenant, sent by another tenant's owner (404) and then by the victim's owner (must succeed),
// route by route and GraphQL mutation by mutation.
describe.each(['in-process', 'distributed'] as const)('probes that reach the check (%s)', (mode) => {
  let platform: Awaited<ReturnType<typeof startPlatformIn>>;
  let graph: Awaited<ReturnType<typeof startMatrixGraph>>;
  let worlds: IsolationWorlds;
  beforeAll(async () => {
    graph = await startMatrixGraph();
    platform = await startPlatformIn(mode, graph.env);
    worlds = { t: platform.t, attacker: await buildWorld(platform.t, 'atk'), victim: await buildWorld(platform.t, 'vic') };
  }, 180_000);
  afterAll(async () => {
    await platform?.close();
    await graph?.close();
  });
  if (mode === 'in-process') describe('REST: every object route', () => restIsolationTests('storage', () => worlds));
  describe('GraphQL: every Query and Mutation field taking an identifier', () => graphqlIsolationTests('storage', () => worlds));

  test("GraphQL reads: another tenant's buckets and objects (App.buckets, Bucket.objects) are unreachable", async () => {
    const { t, attacker, victim } = worlds;
    const objectPath = (victim.state.object as { path: string }).path;
    const query = (app: string) =>
      `{ app(slug: "${app}") { buckets(pageSize: 20) { items { slug objects(pageSize: 20, filter: {prefix: "doc/"}) { items { uuid filePath url } } } } } }`;
    const ask = (host: string, token: string, app: string) => t.call('POST', '/graphql', { host, token, body: { query: query(app) } });
    for (const ref of [victim.app.slug, victim.app.uuid]) {
      const attack = await ask(attacker.site.host, attacker.ownerToken, ref);
      // Refused as for an app that does not exist (not a limit or a syntax error).
      expect(attack.body.data?.app ?? null).toBeNull();
      if (attack.body.errors) expect(attack.body.errors[0].extensions.code).toBe('not_found');
      expect(attack.text).not.toContain(objectPath);
    }
    const control = await ask(victim.site.host, victim.ownerToken, victim.app.slug);
    expect(control.body.errors).toBeUndefined();
    const files = control.body.data.app.buckets.items.find((b: { slug: string }) => b.slug === 'files');
    expect(files.objects.items.map((o: { filePath: string }) => o.filePath)).toContain(objectPath);
  });
});
