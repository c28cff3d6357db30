// Object-level access (access.service.ts) against the real database: manage_* implies the
// narrower permissions, organization grants cascade to sites, groups count, and allowed()
// answers a whole set in one query.
import type pg from 'pg';
import { ANONYMOUS, type Principal, type RequestContext } from '../../subgraphs/core/context.js';
import { allowed, can } from '../../subgraphs/tenancy/access.service.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg } from '../support/tenants.js';

let t: TestApp;
let owner: User;
let orgId: number;
let otherOrgId: number;
let siteIds: number[];
let otherSiteId: number;

const principal = (u: User): Principal => ({
  kind: 'user',
  via: 'jwt',
  userId: u.id,
  uuid: u.uuid,
  username: u.username,
  isStaff: u.isStaff,
  isSuperuser: u.isSuperuser,
});

const ctxOf = (p: Principal): RequestContext => ({
  requestId: 'test',
  principal: p,
  site: null,
  host: 'localhost',
  baseUrl: 'http://localhost',
  platform: t.platform,
  log: t.platform.log,
});

const q = (sql: string, params: unknown[] = []) => t.platform.pool.query(sql, params);

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser();
  orgId = (await insertOrg(t.platform, 'big-org', owner.id)).id;
  otherOrgId = (await insertOrg(t.platform, 'other-org')).id;
  // 50 sites in one organization, one in another (inserted in bulk: no domains needed here).
  const { rows } = await q(
    `INSERT INTO sites (slug, name, organization_id, schema_name)
     SELECT 's' || i, 'Site ' || i, $1, 's' || i FROM generate_series(1, 50) i RETURNING id`,
    [orgId],
  );
  siteIds = rows.map((r) => r.id);
  otherSiteId = (
    await q(`INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ('x1', 'X', $1, 'x1') RETURNING id`, [otherOrgId])
  ).rows[0].id;
});
afterAll(() => t.close());

async function member(perms: string[] = []): Promise<User> {
  const u = await t.createUser();
  await q('INSERT INTO memberships (organization_id, user_id, permissions) VALUES ($1, $2, $3)', [orgId, u.id, perms]);
  return u;
}

/** Counts the queries sent through the platform pool while `fn` runs. */
async function countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: number }> {
  const pool = t.platform.pool as pg.Pool & { query: (...a: unknown[]) => unknown };
  const original = pool.query;
  let queries = 0;
  pool.query = function (this: pg.Pool, ...args: unknown[]) {
    queries++;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pool.query;
  try {
    return { result: await fn(), queries };
  } finally {
    pool.query = original;
  }
}

test('allowed() answers a page of 50 sites (plus a foreign one) in exactly one query', async () => {
  const viewer = await member(['view_site']);
  const ids = [...siteIds, otherSiteId];
  const { result, queries } = await countQueries(() => allowed(ctxOf(principal(viewer)), 'view_site', 'site', ids));
  expect(queries).toBe(1);
  expect([...result].sort((a, b) => a - b)).toEqual([...siteIds].sort((a, b) => a - b));
  // Staff need no query at all; an empty set neither.
  const staff = await t.createUser({ isStaff: true });
  const asStaff = await countQueries(() => allowed(ctxOf(principal(staff)), 'manage_site', 'site', ids));
  expect(asStaff.queries).toBe(0);
  expect(asStaff.result.size).toBe(51);
  expect((await countQueries(() => allowed(ctxOf(principal(viewer)), 'view_site', 'site', []))).queries).toBe(0);
});

test('manage_* implies the narrower permissions of its resource, not the other way round', async () => {
  const manager = await member(['manage_site']);
  const ctx = ctxOf(principal(manager));
  for (const perm of ['view_site', 'change_site', 'delete_site', 'storage:read', 'secrets:write', 'data:write']) {
    expect(await can(ctx, perm, 'site', siteIds[0])).toBe(true);
  }
  const viewer = ctxOf(principal(await member(['view_site'])));
  expect(await can(viewer, 'manage_site', 'site', siteIds[0])).toBe(false);
  expect(await can(viewer, 'change_site', 'site', siteIds[0])).toBe(false);

  const orgManager = ctxOf(principal(await member(['manage_organization'])));
  for (const perm of ['view_organization', 'change_organization', 'delete_organization', 'invite_members']) {
    expect(await can(orgManager, perm, 'organization', orgId)).toBe(true);
  }
  expect(await can(orgManager, 'manage_organization', 'organization', otherOrgId)).toBe(false);
});

test('a permission on the organization cascades to every one of its sites, and nowhere else', async () => {
  const u = await t.createUser();
  await q(`INSERT INTO object_permissions (user_id, permission, object_type, object_id) VALUES ($1, 'view_site', 'organization', $2)`, [
    u.id,
    orgId,
  ]);
  const got = await allowed(ctxOf(principal(u)), 'view_site', 'site', [...siteIds, otherSiteId]);
  expect(got.size).toBe(50);
  expect(got.has(otherSiteId)).toBe(false);
  // A grant on one site covers that site only.
  const one = await t.createUser();
  await q(`INSERT INTO object_permissions (user_id, permission, object_type, object_id) VALUES ($1, 'view_site', 'site', $2)`, [
    one.id,
    siteIds[3],
  ]);
  expect([...(await allowed(ctxOf(principal(one)), 'view_site', 'site', siteIds))]).toEqual([siteIds[3]]);
});

test('groups: an organization group cascades to its sites; a platform group applies everywhere', async () => {
  const u = await t.createUser();
  const g = (
    await q(`INSERT INTO groups (name, scope, organization_id, permissions) VALUES ('g', 'organization', $1, '{view_site}') RETURNING id`, [
      orgId,
    ])
  ).rows[0].id;
  await q('INSERT INTO group_members (group_id, user_id) VALUES ($1, $2)', [g, u.id]);
  const viaGroup = await allowed(ctxOf(principal(u)), 'view_site', 'site', [...siteIds, otherSiteId]);
  expect(viaGroup.size).toBe(50);
  expect(viaGroup.has(otherSiteId)).toBe(false);

  const p = (await q(`INSERT INTO groups (name, scope, permissions) VALUES ('p', 'platform', '{manage_site}') RETURNING id`)).rows[0].id;
  await q('INSERT INTO group_members (group_id, user_id) VALUES ($1, $2)', [p, u.id]);
  expect((await allowed(ctxOf(principal(u)), 'change_site', 'site', [...siteIds, otherSiteId])).size).toBe(51);
});

test('anonymous callers hold nothing; an owner holds everything in their organization', async () => {
  expect((await allowed(ctxOf(ANONYMOUS), 'view_site', 'site', siteIds)).size).toBe(0);
  expect((await allowed(ctxOf(principal(owner)), 'manage_site', 'site', [...siteIds, otherSiteId])).size).toBe(50);
});
