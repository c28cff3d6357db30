// Tenant isolation, attacked systematically (issue 3, item 9). Every route of the table that
// addresses an object is called with another tenant's slugs, UUIDs and ids, under each kind of
// credential and on each kind of host. The answer must be exactly the answer for identifiers
// that do not exist (so nothing reveals that the object exists), never a success, never carry
// the victim's identifiers; and nothing of the victim's may change.
import crypto from 'node:crypto';
import { ROUTES } from '../../gateway/rest/route-table.js';
import { mountedPaths } from '../../subgraphs/core/rest.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type CallOptions, type TestApp } from '../support/app.js';
import { restIsolationTests, graphqlIsolationTests, type IsolationWorlds } from '../support/matrix/isolation.js';
import { buildWorld } from '../support/matrix/world.js';
import { startPlatformIn } from './graphql-fixtures.js';

let t: TestApp;
let alice: User; // attacker: owner of organization A
let bob: User; // victim: owner of organization B
let carol: User; // victim: member of B
const A: Record<string, any> = {};
const B: Record<string, any> = {};
const victimTokens = new Set<string>();

async function ok(res: { status: number; body: any }, what: string) {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function buildTenant(owner: User, tag: string, into: Record<string, any>) {
  const token = t.tokenFor(owner);
  const host = `${tag}.isolation.test`;
  into.org = await ok(await t.call('POST', '/api/organizations/', { token, body: { name: `Org ${tag}` } }), 'org');
  into.site = await ok(
    await t.call('POST', `/api/organizations/${into.org.slug}/sites/`, { token, body: { name: `Site ${tag}` } }),
    'site',
  );
  into.host = host;
  into.domain = await ok(await t.call('POST', `/api/sites/${into.site.slug}/domains/`, { token, body: { domain: host } }), 'domain');
  into.app = await ok(await t.call('POST', '/api/apps/', { token, host, body: { name: `App ${tag}` } }), 'app');
  into.key = await ok(await t.call('POST', `/api/apps/${into.app.slug}/api-keys/`, { token, host, body: { name: `key ${tag}` } }), 'key');
  into.group = await ok(
    await t.call('POST', '/api/groups/', {
      token,
      body: { name: `Group ${tag}`, scope: 'organization', organization: into.org.slug, permissions: ['view_site'] },
    }),
    'group',
  );
  into.secretType = await ok(
    await t.call('POST', '/api/secret-types/', {
      token,
      host,
      body: { type: 'custom', name: `Type ${tag}`, sensitivity_level: 'private', schema: { type: 'object' } },
    }),
    'secret type',
  );
  into.tag = await ok(await t.call('POST', '/api/tags/', { token, host, body: { name: `tag-${tag}` } }), 'tag');
  into.secret = await ok(
    await t.call('POST', '/api/secrets/', {
      token,
      host,
      body: { secret_type: into.secretType.slug, key: `key-${tag}`, value: { marker: `value-${tag}` }, tags: [into.tag.slug] },
    }),
    'secret',
  );
  // A datatable with one record whose key equals the API key's id, so `:name` and the records'
  // `:id` probes address real objects.
  into.table = (
    await ok(
      await t.call('POST', `/api/apps/${into.app.slug}/datatables/create_schema/`, {
        token,
        host,
        body: {
          resources: [
            {
              name: `table-${tag}`,
              schema: {
                fields: [
                  { name: 'id', type: 'integer' },
                  { name: 'marker', type: 'string' },
                ],
                primaryKey: 'id',
              },
            },
          ],
        },
      }),
      'datatable',
    )
  ).data[0];
  into.schemaName = (await t.platform.pool.query('SELECT schema_name FROM sites WHERE uuid = $1', [into.site.uuid])).rows[0].schema_name;
  await t.platform.pool.query(`INSERT INTO "${into.schemaName}"."${into.table.physical_name}" (id, marker) VALUES ($1, $2)`, [
    into.key.id,
    `row-${tag}`,
  ]);
  // A storage bucket, so that the storage routes' `:bucket` probes address a real bucket.
  into.bucket = (
    await ok(
      await t.call('POST', `/api/apps/${into.app.slug}/storage/buckets/`, {
        token,
        host,
        body: { name: `Bucket ${tag}`, slug: `bucket-${tag}` },
      }),
      'bucket',
    )
  ).data;
  into.invitation = await ok(
    await t.call('POST', `/api/organizations/${into.org.slug}/invitations/`, {
      token,
      body: { invitee_identifier: `invitee-${tag}@example.test`, permissions: [] },
    }),
    'invitation',
  );
}

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.createUser({ username: 'alice-attacker' });
  bob = await t.createUser({ username: 'bob-victim' });
  carol = await t.createUser({ username: 'carol-victim' });
  await buildTenant(alice, 'a', A);
  await buildTenant(bob, 'b', B);
  // carol joins B through an invitation, so B has a plain member too.
  const inv = await ok(
    await t.call('POST', `/api/organizations/${B.org.slug}/invitations/`, {
      token: t.tokenFor(bob),
      body: { invitee_identifier: carol.email, permissions: ['view_organization'] },
    }),
    'invite carol',
  );
  await ok(await t.call('POST', `/api/invitations/${inv.token}/accept/`, { token: t.tokenFor(carol) }), 'accept');
  for (const v of [
    B.org.uuid,
    B.org.slug,
    B.site.uuid,
    B.site.slug,
    B.domain.uuid,
    B.app.uuid,
    B.key.uuid,
    bob.uuid,
    carol.uuid,
    B.invitation.uuid,
    B.secretType.slug,
    B.tag.slug,
    B.secret.key,
    'value-b',
    B.table.name,
    'row-b',
  ]) {
    victimTokens.add(String(v));
  }
}, 120_000);
afterAll(() => t.close());

const fakeUuid = () => crypto.randomUUID();

/** For each path parameter: the attacker's own value, the victim's values, and a non-existent one of the same form. */
function candidates(param: string): { own?: string; victim: string[]; fake: (v: string) => string } {
  const fakeFor = (v: string) => (/^[0-9a-f-]{36}$/.test(v) ? fakeUuid() : /^\d+$/.test(v) ? '987654321' : 'zz-no-such-thing');
  const table: Record<string, { own?: string; victim: string[] }> = {
    org: { own: A.org.slug, victim: [B.org.slug, B.org.uuid] },
    site: { own: A.site.slug, victim: [B.site.slug, B.site.uuid] },
    domain: { own: A.domain.slug, victim: [B.domain.slug, B.domain.uuid] },
    app: { own: A.app.slug, victim: [B.app.slug, B.app.uuid] },
    id: { own: String(A.key.id), victim: [String(B.key.id), B.key.uuid] },
    group: { own: String(A.group.id), victim: [String(B.group.id)] },
    user: { own: alice.slug, victim: [bob.slug, bob.uuid, carol.slug] },
    uuid: { own: A.invitation.uuid, victim: [B.invitation.uuid] },
    // secret types and tags of the site share the `:slug` position
    slug: { own: A.secretType.slug, victim: [B.secretType.slug, B.tag.slug] },
    key: { own: A.secret.key, victim: [B.secret.key] },
    name: { own: A.table.name, victim: [B.table.name] },
    bucket: { own: A.bucket.slug, victim: [B.bucket.slug] },
    // events: event names are global (no victim value); functions, invocations and task ids are
    // covered by test/e2e/events-isolation.test.ts
    event: { own: 'RECORD_CREATE', victim: [] },
    task_id: { victim: [] },
  };
  const c = table[param];
  if (!c) throw new Error(`no isolation candidates for :${param}; add them`);
  return { ...c, fake: fakeFor };
}

interface Probe {
  method: string;
  victimUrl: string;
  fakeUrl: string;
}

/** Every combination with at least one victim value; the fake URL swaps each victim value. */
function probes(method: string, path: string): Probe[] {
  const params = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  let combos: { url: string; fake: string; victim: boolean }[] = [{ url: path, fake: path, victim: false }];
  for (const p of params) {
    const c = candidates(p);
    const next: typeof combos = [];
    for (const combo of combos) {
      if (c.own) next.push({ url: combo.url.replace(`:${p}`, c.own), fake: combo.fake.replace(`:${p}`, c.own), victim: combo.victim });
      for (const v of c.victim)
        next.push({ url: combo.url.replace(`:${p}`, v), fake: combo.fake.replace(`:${p}`, c.fake(v)), victim: true });
    }
    combos = next;
  }
  return combos.filter((c) => c.victim).map((c) => ({ method, victimUrl: c.url, fakeUrl: c.fake }));
}

const BODY = {
  name: 'hijacked',
  slug: 'hijacked',
  description: 'x',
  environment: 'production',
  domain: 'hijacked.isolation.test',
  is_primary: true,
  role: 'owner',
  permissions: ['manage_organization'],
  invitee_identifier: 'hijack@example.test',
  user: 'alice-attacker',
  username: 'hijacked',
  email: 'hijack@example.test',
  password: 'hijacked-password',
  first_name: 'H',
  bio: 'hijacked',
  site_settings: { hijacked: true },
};

const credentials = (): Record<string, (host: string) => CallOptions> => ({
  jwt: () => ({ token: t.tokenFor(alice) }),
  apiKey: () => ({ headers: { authorization: `Api-Key ${A.key.key}` } }),
  anonymous: () => ({}),
});

const objectRoutes = () => ROUTES.filter((r) => /:(\w+)/.test(r.path) && !r.path.startsWith('/auth/') && !r.path.includes(':token'));

async function snapshot(): Promise<string> {
  const q = async (sql: string, params: unknown[]) => (await t.platform.pool.query(sql, params)).rows;
  const orgId = (await q('SELECT id FROM organizations WHERE uuid = $1', [B.org.uuid]))[0].id;
  const rows = {
    org: await q('SELECT * FROM organizations WHERE id = $1', [orgId]),
    members: await q('SELECT organization_id, user_id, role, permissions FROM memberships WHERE organization_id = $1 ORDER BY user_id', [
      orgId,
    ]),
    sites: await q('SELECT * FROM sites WHERE organization_id = $1 ORDER BY id', [orgId]),
    domains: await q('SELECT d.* FROM domains d JOIN sites s ON s.id = d.site_id WHERE s.organization_id = $1 ORDER BY d.id', [orgId]),
    apps: await q('SELECT a.* FROM apps a JOIN sites s ON s.id = a.site_id WHERE s.organization_id = $1 ORDER BY a.id', [orgId]),
    keys: await q(
      'SELECT k.id, k.revoked_at FROM api_keys k JOIN apps a ON a.id = k.app_id JOIN sites s ON s.id = a.site_id WHERE s.organization_id = $1',
      [orgId],
    ),
    groups: await q('SELECT * FROM groups WHERE organization_id = $1', [orgId]),
    groupMembers: await q(
      'SELECT gm.group_id, gm.user_id FROM group_members gm JOIN groups g ON g.id = gm.group_id WHERE g.organization_id = $1 ORDER BY 1, 2',
      [orgId],
    ),
    invitations: await q('SELECT id, status, token_hash, expires_at FROM invitations WHERE organization_id = $1 ORDER BY id', [orgId]),
    users: await q(
      'SELECT id, username, email, is_active, is_deleted, password_hash, first_name FROM users WHERE id = ANY($1) ORDER BY id',
      [[bob.id, carol.id]],
    ),
    profiles: await q('SELECT * FROM user_profiles WHERE user_id = ANY($1) ORDER BY user_id', [[bob.id, carol.id]]),
    grants: await q('SELECT * FROM object_permissions WHERE user_id = ANY($1) ORDER BY id', [[bob.id, carol.id]]),
    secretRows: await q('SELECT s.* FROM secrets s JOIN sites x ON x.id = s.site_id WHERE x.organization_id = $1 ORDER BY s.id', [orgId]),
    secretTypes: await q('SELECT t.* FROM secret_types t JOIN sites x ON x.id = t.site_id WHERE x.organization_id = $1 ORDER BY t.id', [
      orgId,
    ]),
    secretTags: await q('SELECT g.* FROM secret_tags g JOIN sites x ON x.id = g.site_id WHERE x.organization_id = $1 ORDER BY g.id', [
      orgId,
    ]),
    datatables: await q(
      'SELECT d.id, d.name, d.version, d.schema FROM datatables d JOIN sites x ON x.id = d.site_id WHERE x.organization_id = $1 ORDER BY d.id',
      [orgId],
    ),
    buckets: await q('SELECT b.* FROM storage_buckets b JOIN sites x ON x.id = b.site_id WHERE x.organization_id = $1 ORDER BY b.id', [
      orgId,
    ]),
    tableRows: await q(`SELECT * FROM "${B.schemaName}"."${B.table.physical_name}" ORDER BY id`, []),
    secretHistory: await q(
      'SELECT h.id FROM secret_history h JOIN sites x ON x.id = h.site_id WHERE x.organization_id = $1 ORDER BY h.id',
      [orgId],
    ),
  };
  return JSON.stringify(rows);
}

test('every object route answers for another tenant exactly as for nothing, and changes nothing', async () => {
  const before = await snapshot();
  const failures: string[] = [];
  let checked = 0;
  const hosts = () => ['localhost', A.host, B.host];
  for (const route of objectRoutes()) {
    for (const path of mountedPaths(route)) {
      for (const probe of probes(route.method, path)) {
        for (const [credName, cred] of Object.entries(credentials())) {
          for (const host of hosts()) {
            const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? BODY : undefined;
            const victim = await t.call(probe.method, probe.victimUrl, { ...cred(host), host, body });
            const fake = await t.call(probe.method, probe.fakeUrl, { ...cred(host), host, body });
            checked++;
            const label = `${credName}@${host} ${probe.method} ${probe.victimUrl}`;
            if (victim.status < 300) failures.push(`${label}: succeeded (${victim.status})`);
            else if (victim.status !== fake.status || victim.body?.code !== fake.body?.code) {
              failures.push(
                `${label}: ${victim.status} ${victim.body?.code} but ${fake.status} ${fake.body?.code} for a non-existent object`,
              );
            } else if ([...victimTokens].some((v) => victim.text.includes(v) && !probe.victimUrl.includes(v))) {
              // (An identifier the caller sent itself may be echoed; anything else is a leak.)
              failures.push(`${label}: the answer names the victim's object`);
            }
          }
        }
      }
    }
  }
  expect(failures).toEqual([]);
  expect(checked).toBeGreaterThan(500);
  expect(await snapshot()).toBe(before);
}, 300_000);

test('lists never show another tenant', async () => {
  const lists: [string, string][] = [
    ['/api/organizations/', 'localhost'],
    ['/api/sites/', 'localhost'],
    ['/api/users/', 'localhost'],
    ['/api/groups/', 'localhost'],
    ['/api/apps/', A.host],
    [`/api/organizations/${A.org.slug}/sites/`, 'localhost'],
    [`/api/organizations/${A.org.slug}/members/`, 'localhost'],
    [`/api/organizations/${A.org.slug}/audit/`, 'localhost'],
    [`/api/sites/${A.site.slug}/domains/`, 'localhost'],
    [`/api/apps/${A.app.slug}/api-keys/`, A.host],
    ['/api/secrets/', A.host],
    ['/api/secret-types/', A.host],
    ['/api/tags/', A.host],
    [`/api/secrets/${A.secret.key}/history/`, A.host],
    [`/api/apps/${A.app.slug}/datatables/`, A.host],
    [`/api/apps/${A.app.slug}/datatables/${A.table.name}/data/`, A.host],
  ];
  for (const [url, host] of lists) {
    for (const [credName, cred] of Object.entries(credentials())) {
      const res = await t.call('GET', `${url}?page_size=100`, { ...cred(host), host });
      const leaked = [...victimTokens].filter((v) => res.text.includes(v));
      expect({ url, credName, leaked }).toEqual({ url, credName, leaked: [] });
    }
  }
});

test('GraphQL entry points never resolve another tenant', async () => {
  const token = t.tokenFor(alice);
  const queries = [
    `{ organization(slug: "${B.org.slug}") { id } }`,
    `{ organization(slug: "${B.org.uuid}") { id } }`,
    `{ site(slug: "${B.site.slug}") { id } }`,
    `{ organizations(pageSize: 100) { items { id slug } } }`,
  ];
  for (const query of queries) {
    for (const host of ['localhost', A.host]) {
      const res = await t.call('POST', '/graphql', { token, host, body: { query } });
      const leaked = [...victimTokens].filter((v) => res.text.includes(v));
      expect({ query, host, leaked }).toEqual({ query, host, leaked: [] });
    }
  }
  const app = await t.call('POST', '/graphql', { token, host: A.host, body: { query: `{ app(slug: "${B.app.slug}") { id } }` } });
  expect(app.body.data?.app ?? null).toBeNull();
  expect(app.body.errors?.[0]?.extensions?.code).toBe('not_found');
});

// The control that the probes reach real objects is per route below ("probes that reach the
// check"): the victim's owner sends each probe and must succeed, write routes included.

// Probes that reach the check (issue 16 item 3): each a complete request built by the
// permission matrix's fixtures (test/support/matrix/tenancy.ts) against a victim tenant, sent by
// another tenant's owner (404) and then by the victim's owner (must succeed), route by route.
describe.each(['in-process', 'distributed'] as const)('probes that reach the check (%s)', (mode) => {
  let platform: Awaited<ReturnType<typeof startPlatformIn>>;
  let worlds: IsolationWorlds;
  beforeAll(async () => {
    platform = await startPlatformIn(mode);
    worlds = { t: platform.t, attacker: await buildWorld(platform.t, 'atk'), victim: await buildWorld(platform.t, 'vic') };
  }, 180_000);
  afterAll(() => platform?.close());
  if (mode === 'in-process') describe('REST: every object route', () => restIsolationTests('tenancy', () => worlds));
  describe('GraphQL: every Query and Mutation field taking an identifier', () => graphqlIsolationTests('tenancy', () => worlds));
});
