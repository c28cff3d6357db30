// Revocation (issue 16, item 2): taking a right away takes effect at once in the process that
// made the change, and within one second in every other process. The hot reads (a record by
// id, a secret by key) remember recent grants for a moment (core/grant-cache.ts); every change
// of rights clears what was remembered. Each test warms the grant in both processes first, so
// a refusal can only come from the invalidation.
//
// "Another process" here is a second platform on the same database: its own caches and its
// own LISTEN connection, exactly what a second gateway has (docs/security.md "Revocation").
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../gateway/app.js';
import { apiKeyFormat } from '../../subgraphs/tenancy/api-key-format.js';
import { createLogger } from '../../subgraphs/core/logger.js';
import { startPlatform, type Platform } from '../../subgraphs/core/platform.js';
import { MODULES } from '../../subgraphs/modules.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'rev.localhost';
const WINDOW_MS = 1000;

let t: TestApp;
let other: { platform: Platform; app: FastifyInstance };
let owner: User;
let ownerTok: string;
let orgId: number;
let appId: number;
let recordUrl: string;

interface Reply {
  status: number;
}
type Probe = (where: 'here' | 'there') => Promise<Reply>;

async function inject(where: 'here' | 'there', method: 'GET', url: string, headers: Record<string, string>): Promise<Reply> {
  const app = where === 'here' ? t.app : other.app;
  const res = await app.inject({ method, url, headers: { host: HOST, ...headers } });
  return { status: res.statusCode };
}

const asUser = (u: User) => ({ authorization: `Bearer ${t.tokenFor(u)}` });
const readRecord =
  (u: User): Probe =>
  (where) =>
    inject(where, 'GET', recordUrl, asUser(u));
const readSecret =
  (u: User): Probe =>
  (where) =>
    inject(where, 'GET', '/api/secrets/rev-config/', asUser(u));

/** A member of the organization with these permissions on their membership. */
async function member(permissions: string[]): Promise<User> {
  const u = await t.createUser();
  await t.platform.pool.query(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`, [
    orgId,
    u.id,
    permissions,
  ]);
  return u;
}

/** Warms both processes, takes the right away in this one, and measures both. */
async function expectRevoked(probe: Probe, revoke: () => Promise<void>, refused = [403, 404]): Promise<void> {
  for (const where of ['here', 'there'] as const) {
    expect((await probe(where)).status).toBe(200);
    expect((await probe(where)).status).toBe(200);
  }
  await revoke();
  // At once here: the very next request.
  expect(refused).toContain((await probe('here')).status);
  // Within a second there.
  const start = Date.now();
  let status = (await probe('there')).status;
  while (!refused.includes(status) && Date.now() - start < 5_000) {
    await new Promise((r) => setTimeout(r, 20));
    status = (await probe('there')).status;
  }
  expect(refused).toContain(status);
  expect(Date.now() - start).toBeLessThan(WINDOW_MS);
}

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser();
  ownerTok = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'rev-org', owner.id);
  orgId = org.id;
  const site = await insertSite(t.platform, org.id, 'rev-site', HOST);
  appId = (await insertApp(t.platform, site.id, 'web')).id;
  await createTables(t, { host: HOST, token: ownerTok, app: 'web' }, [
    { name: 'notes', schema: { fields: [{ name: 'text', type: 'string' }] } },
  ]);
  const rec = await t.call('POST', '/api/apps/web/datatables/notes/data/', { host: HOST, token: ownerTok, body: { text: 'hi' } });
  expect(rec.status).toBe(201);
  recordUrl = `/api/apps/web/datatables/notes/data/${rec.body.data.id}/`;
  const secret = await t.call('POST', '/api/secrets/', {
    host: HOST,
    token: ownerTok,
    body: { secret_type: 'basic-auth', key: 'rev-config', value: { username: 'u', password: 'p' } },
  });
  expect(secret.status).toBe(201);

  // The second process: the same configuration and database, its own platform object.
  const platform = await startPlatform(t.platform.config, createLogger('silent'), { modules: MODULES });
  const app = await buildApp(platform);
  await app.ready();
  other = { platform, app };
}, 120_000);

afterAll(async () => {
  await other?.app.close();
  await other?.platform.close();
  await t?.close();
});

test('removing a member', async () => {
  const u = await member(['view_site', 'data:read']);
  await expectRevoked(readRecord(u), async () => {
    const res = await t.call('DELETE', `/api/organizations/rev-org/members/${u.slug}/`, { token: ownerTok });
    expect(res.status).toBe(204);
  });
});

test("taking a permission off a member's membership", async () => {
  const u = await member(['secrets:read']);
  await expectRevoked(readSecret(u), async () => {
    const res = await t.call('PATCH', `/api/organizations/rev-org/members/${u.slug}/`, { token: ownerTok, body: { permissions: [] } });
    expect(res.status).toBe(200);
  });
});

test('removing a user from a group that grants the permission', async () => {
  const u = await member(['view_site']);
  const group = await t.call('POST', '/api/groups/', {
    token: ownerTok,
    body: { name: 'Readers 1', organization: 'rev-org', permissions: ['data:read'] },
  });
  expect(group.status).toBe(201);
  const added = await t.call('POST', `/api/groups/${group.body.id}/users/`, { token: ownerTok, body: { user: u.slug } });
  expect(added.status).toBe(201);
  await expectRevoked(readRecord(u), async () => {
    const res = await t.call('DELETE', `/api/groups/${group.body.id}/users/${u.slug}/`, { token: ownerTok });
    expect(res.status).toBeLessThan(300);
  });
});

test("taking the permission off a group's permissions", async () => {
  const u = await member(['view_site']);
  const group = await t.call('POST', '/api/groups/', {
    token: ownerTok,
    body: { name: 'Readers 2', organization: 'rev-org', permissions: ['secrets:read'] },
  });
  expect(group.status).toBe(201);
  expect((await t.call('POST', `/api/groups/${group.body.id}/users/`, { token: ownerTok, body: { user: u.slug } })).status).toBe(201);
  await expectRevoked(readSecret(u), async () => {
    const res = await t.call('PUT', `/api/groups/${group.body.id}/`, {
      token: ownerTok,
      body: { name: 'Readers 2', organization: 'rev-org', permissions: [] },
    });
    expect(res.status).toBe(200);
  });
});

test('deleting a group that grants the permission', async () => {
  const u = await member(['view_site']);
  const group = await t.call('POST', '/api/groups/', {
    token: ownerTok,
    body: { name: 'Readers 3', organization: 'rev-org', permissions: ['data:read'] },
  });
  expect((await t.call('POST', `/api/groups/${group.body.id}/users/`, { token: ownerTok, body: { user: u.slug } })).status).toBe(201);
  await expectRevoked(readRecord(u), async () => {
    expect((await t.call('DELETE', `/api/groups/${group.body.id}/`, { token: ownerTok })).status).toBe(204);
  });
});

test('revoking an API key', async () => {
  const key = apiKeyFormat.generate();
  const { rows } = await t.platform.pool.query('INSERT INTO api_keys (app_id, prefix, key_hash) VALUES ($1, $2, $3) RETURNING id', [
    appId,
    key.prefix,
    key.hash,
  ]);
  const probe: Probe = (where) => inject(where, 'GET', recordUrl, { authorization: `Api-Key ${key.key}` });
  await expectRevoked(probe, async () => {
    const res = await t.call('DELETE', `/api/apps/web/api-keys/${rows[0].id}/`, { host: HOST, token: ownerTok });
    expect(res.status).toBeLessThan(300);
  }, [401]);
});
