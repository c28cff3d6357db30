// Groups and the permission catalogue through REST, group permissions taking effect through
// access.service.ts, and isolation between organizations.
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg, insertSite } from '../support/tenants.js';

let t: TestApp;
let root: User; // superuser
let staff: User;
let ownerA: User;
let memberA: User;
let managerA: User; // member of A with manage_organization
let ownerB: User;
let memberB: User;
const tok = (u: User) => t.tokenFor(u);

beforeAll(async () => {
  t = await startTestApp();
  root = await t.createUser({ isSuperuser: true, isStaff: true });
  staff = await t.createUser({ isStaff: true });
  ownerA = await t.createUser({ username: 'owner-a' });
  memberA = await t.createUser({ username: 'member-a' });
  managerA = await t.createUser({ username: 'manager-a' });
  ownerB = await t.createUser({ username: 'owner-b' });
  memberB = await t.createUser({ username: 'member-b' });
  const a = await insertOrg(t.platform, 'org-a', ownerA.id);
  const b = await insertOrg(t.platform, 'org-b', ownerB.id);
  const add = (org: number, user: number, perms: string[] = []) =>
    t.platform.pool.query('INSERT INTO memberships (organization_id, user_id, permissions) VALUES ($1, $2, $3)', [org, user, perms]);
  await add(a.id, memberA.id);
  await add(a.id, managerA.id, ['manage_organization']);
  await add(b.id, memberB.id);
  await insertSite(t.platform, a.id, 'site-a', 'site-a.example.test');
});
afterAll(() => t.close());

async function orgGroup(token: string, org: string, name: string, permissions: string[] = []) {
  const res = await t.call('POST', '/api/groups/', { token, body: { name, organization: org, permissions } });
  expect(res.status).toBe(201);
  return res.body;
}

describe('create, read, update, delete', () => {
  test('an owner creates an organization group; shape and audit', async () => {
    const g = await orgGroup(tok(ownerA), 'org-a', 'Editors', ['view_site', 'change_site']);
    expect(g).toMatchObject({
      name: 'Editors',
      scope: 'organization',
      organization: 'org-a',
      permissions: ['view_site', 'change_site'],
      users: [],
    });
    expect(typeof g.id).toBe('number');
    const audit = await t.platform.pool.query(`SELECT action FROM audit_log WHERE object_type = 'group' AND object_id = $1`, [
      String(g.id),
    ]);
    expect(audit.rows.map((r) => r.action)).toEqual(['create']);
    expect((await t.call('GET', `/api/groups/${g.id}/`, { token: tok(memberA) })).body.name).toBe('Editors');
  });

  test('validation: 400 naming unknown permissions and missing fields', async () => {
    const res = await t.call('POST', '/api/groups/', {
      token: tok(ownerA),
      body: { organization: 'org-a', permissions: ['view_site', 'fly_rocket'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.name).toBeDefined();
    expect(res.body.errors.permissions[0]).toContain('fly_rocket');
    const scope = await t.call('POST', '/api/groups/', { token: tok(ownerA), body: { name: 'X', scope: 'organization' } });
    expect(scope.body.errors.organization).toBeDefined();
    const weird = await t.call('POST', '/api/groups/', { token: tok(ownerA), body: { name: 'X', scope: 'galaxy' } });
    expect(weird.body.errors.scope).toBeDefined();
    // Another organization named in the body is simply not found.
    const foreign = await t.call('POST', '/api/groups/', { token: tok(ownerA), body: { name: 'X', organization: 'org-b' } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors.organization).toBeDefined();
  });

  test('403 for members without manage_organization and for non-superusers on platform groups; 409 on a duplicate name', async () => {
    expect((await t.call('POST', '/api/groups/', { token: tok(memberA), body: { name: 'Mine', organization: 'org-a' } })).status).toBe(403);
    expect((await t.call('POST', '/api/groups/', { token: tok(staff), body: { name: 'Platform' } })).status).toBe(403);
    const viaManager = await orgGroup(tok(managerA), 'org-a', 'Managers pick');
    expect(viaManager.organization).toBe('org-a');
    const dup = await t.call('POST', '/api/groups/', { token: tok(ownerA), body: { name: 'editors', organization: 'org-a' } });
    expect(dup.status).toBe(409);
    // The same name in another organization is fine.
    await orgGroup(tok(ownerB), 'org-b', 'Editors');
    const platform = await t.call('POST', '/api/groups/', {
      token: tok(root),
      body: { name: 'Auditors', permissions: ['view_organization'] },
    });
    expect(platform.status).toBe(201);
    expect(platform.body).toMatchObject({ scope: 'platform', organization: null });
    expect((await t.call('POST', '/api/groups/', {})).status).toBe(401);
  });

  test('PUT / PATCH / DELETE with their failures', async () => {
    const g = await orgGroup(tok(ownerA), 'org-a', 'Temp', ['view_site']);
    const put = await t.call('PUT', `/api/groups/${g.id}/`, { token: tok(ownerA), body: { name: 'Temp 2', permissions: ['manage_site'] } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'Temp 2', permissions: ['manage_site'] });
    expect((await t.call('PUT', `/api/groups/${g.id}/`, { token: tok(ownerA), body: { permissions: [] } })).status).toBe(400);
    const patch = await t.call('PATCH', `/api/groups/${g.id}/`, { token: tok(ownerA), body: { permissions: ['nope'] } });
    expect(patch.status).toBe(400);
    expect(patch.body.errors.permissions[0]).toContain('nope');
    const move = await t.call('PATCH', `/api/groups/${g.id}/`, { token: tok(ownerA), body: { organization: 'org-b' } });
    expect(move.body.errors.organization).toBeDefined();
    expect((await t.call('PATCH', `/api/groups/${g.id}/`, { token: tok(ownerA), body: { name: 'Editors' } })).status).toBe(409);
    expect((await t.call('PATCH', `/api/groups/${g.id}/`, { token: tok(memberA), body: { name: 'Z' } })).status).toBe(403);
    expect((await t.call('DELETE', `/api/groups/${g.id}/`, { token: tok(memberA) })).status).toBe(403);
    expect((await t.call('DELETE', `/api/groups/${g.id}/`, { token: tok(ownerA) })).status).toBe(204);
    expect((await t.call('GET', `/api/groups/${g.id}/`, { token: tok(ownerA) })).status).toBe(404);
    expect((await t.call('GET', '/api/groups/not-a-number/', { token: tok(ownerA) })).status).toBe(404);
  });

  test('list: visibility, filters, ordering', async () => {
    const mine = await t.call('GET', '/api/groups/?ordering=name', { token: tok(memberA) });
    expect(mine.status).toBe(200);
    expect(mine.body.results.every((g: any) => g.organization === 'org-a')).toBe(true);
    expect(mine.body.results.map((g: any) => g.name)).toEqual(['Editors', 'Managers pick']);
    const all = await t.call('GET', '/api/groups/?scope=platform', { token: tok(staff) });
    expect(all.body.results.map((g: any) => g.name)).toEqual(['Auditors']);
    const byOrg = await t.call('GET', '/api/groups/?organization_slug=org-b', { token: tok(staff) });
    expect(byOrg.body.count).toBe(1);
    const search = await t.call('GET', '/api/groups/?search=manag', { token: tok(staff) });
    expect(search.body.results.map((g: any) => g.name)).toEqual(['Managers pick']);
    expect((await t.call('GET', '/api/groups/?ordering=secret', { token: tok(staff) })).status).toBe(400);
    expect((await t.call('GET', '/api/groups/')).status).toBe(401);
  });
});

describe('members and the permissions they carry', () => {
  test('a group holding view_site opens the site to its members, and closes it on removal', async () => {
    const host = 'site-a.example.test';
    expect((await t.call('GET', '/api/sites/config/', { token: tok(memberA), host })).status).toBe(403);
    const g = await orgGroup(tok(ownerA), 'org-a', 'Viewers', ['view_site']);
    const added = await t.call('POST', `/api/groups/${g.id}/users/`, { token: tok(ownerA), body: { user: 'member-a' } });
    expect(added.status).toBe(201);
    expect(added.body.users).toEqual([{ uuid: memberA.uuid, username: 'member-a' }]);
    // Adding again changes nothing; a UUID or slug names the user as well.
    const again = await t.call('POST', `/api/groups/${g.id}/users/`, { token: tok(ownerA), body: { user: memberA.uuid } });
    expect(again.body.users).toHaveLength(1);

    const config = await t.call('GET', '/api/sites/config/', { token: tok(memberA), host });
    expect(config.status).toBe(200);
    expect(config.body.site.slug).toBe('site-a');

    expect((await t.call('DELETE', `/api/groups/${g.id}/users/${memberA.slug}/`, { token: tok(ownerA) })).status).toBe(204);
    expect((await t.call('GET', '/api/sites/config/', { token: tok(memberA), host })).status).toBe(403);
    expect((await t.call('DELETE', `/api/groups/${g.id}/users/${memberA.slug}/`, { token: tok(ownerA) })).status).toBe(404);
    const audit = await t.platform.pool.query(`SELECT action FROM audit_log WHERE object_type = 'group' AND object_id = $1 ORDER BY id`, [
      String(g.id),
    ]);
    expect(audit.rows.map((r) => r.action)).toEqual(['create', 'add_member', 'add_member', 'remove_member']);
  });

  test('a platform group applies everywhere', async () => {
    const outsider = await t.createUser();
    const g = await t.call('POST', '/api/groups/', { token: tok(root), body: { name: 'Site viewers', permissions: ['view_site'] } });
    expect((await t.call('POST', `/api/groups/${g.body.id}/users/`, { token: tok(root), body: { user: outsider.username } })).status).toBe(
      201,
    );
    expect((await t.call('GET', '/api/sites/config/', { token: tok(outsider), host: 'site-a.example.test' })).status).toBe(200);
    // Its member sees the group; others without staff do not.
    expect((await t.call('GET', `/api/groups/${g.body.id}/`, { token: tok(outsider) })).status).toBe(200);
    expect((await t.call('GET', `/api/groups/${g.body.id}/`, { token: tok(memberA) })).status).toBe(404);
    expect((await t.call('DELETE', `/api/groups/${g.body.id}/`, { token: tok(root) })).status).toBe(204);
    expect((await t.call('GET', '/api/sites/config/', { token: tok(outsider), host: 'site-a.example.test' })).status).toBe(403);
  });

  test('adding: 400 for a user outside the organization or unknown, or a missing field; 403 for a plain member', async () => {
    const g = await orgGroup(tok(ownerA), 'org-a', 'Strict');
    const outside = await t.call('POST', `/api/groups/${g.id}/users/`, { token: tok(ownerA), body: { user: 'member-b' } });
    expect(outside.status).toBe(400);
    expect(outside.body.errors.user).toBeDefined();
    const unknown = await t.call('POST', `/api/groups/${g.id}/users/`, { token: tok(ownerA), body: { user: 'no-such-user' } });
    expect(unknown.body.errors.user).toEqual(outside.body.errors.user.map((m: string) => m.replace('member-b', 'no-such-user')));
    expect((await t.call('POST', `/api/groups/${g.id}/users/`, { token: tok(ownerA), body: {} })).body.errors.user).toBeDefined();
    expect((await t.call('POST', `/api/groups/${g.id}/users/`, { token: tok(memberA), body: { user: 'member-a' } })).status).toBe(403);
  });
});

describe('isolation between organizations', () => {
  test("org A never reads, lists or changes org B's groups or users (404)", async () => {
    const gB = await orgGroup(tok(ownerB), 'org-b', 'B only', ['view_site']);
    for (const u of [ownerA, memberA, managerA]) {
      expect((await t.call('GET', `/api/groups/${gB.id}/`, { token: tok(u) })).status).toBe(404);
      expect((await t.call('PATCH', `/api/groups/${gB.id}/`, { token: tok(u), body: { name: 'x' } })).status).toBe(404);
      expect((await t.call('PUT', `/api/groups/${gB.id}/`, { token: tok(u), body: { name: 'x' } })).status).toBe(404);
      expect((await t.call('DELETE', `/api/groups/${gB.id}/`, { token: tok(u) })).status).toBe(404);
      expect((await t.call('POST', `/api/groups/${gB.id}/users/`, { token: tok(u), body: { user: u.username } })).status).toBe(404);
      expect((await t.call('DELETE', `/api/groups/${gB.id}/users/${memberB.slug}/`, { token: tok(u) })).status).toBe(404);
      const groups = await t.call('GET', '/api/groups/?page_size=100', { token: tok(u) });
      expect(groups.body.results.some((g: any) => g.organization === 'org-b')).toBe(false);
      expect((await t.call('GET', '/api/groups/?organization_slug=org-b', { token: tok(u) })).body.count).toBe(0);

      for (const target of [ownerB, memberB]) {
        expect((await t.call('GET', `/api/users/${target.slug}/`, { token: tok(u) })).status).toBe(404);
        expect((await t.call('PATCH', `/api/users/${target.slug}/`, { token: tok(u), body: { first_name: 'x' } })).status).toBe(404);
        expect((await t.call('DELETE', `/api/users/${target.uuid}/`, { token: tok(u) })).status).toBe(404);
        expect((await t.call('GET', `/api/users/${target.slug}/profile/`, { token: tok(u) })).status).toBe(404);
      }
      const users = await t.call('GET', '/api/users/?page_size=100', { token: tok(u) });
      expect(users.body.results.map((x: any) => x.username).sort()).toEqual(['manager-a', 'member-a', 'owner-a']);
    }
  });
});

describe('GET /api/permissions/', () => {
  test('lists the catalogue to any signed-in user, filtered by resource', async () => {
    const all = await t.call('GET', '/api/permissions/', { token: tok(memberB) });
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(all.body.results.length);
    expect(all.body.results).toContainEqual({ codename: 'manage_site', name: 'Can manage site', resource: 'site' });
    const site = await t.call('GET', '/api/permissions/?resource=organization', { token: tok(memberB) });
    expect(site.body.results.map((p: any) => p.codename)).toEqual([
      'view_organization',
      'change_organization',
      'delete_organization',
      'manage_organization',
      'invite_members',
    ]);
    expect((await t.call('GET', '/api/permissions/?resource=nothing', { token: tok(memberB) })).body.count).toBe(0);
    expect((await t.call('GET', '/api/permissions/')).status).toBe(401);
    expect((await t.call('GET', '/api/permissions/?page=0', { token: tok(memberB) })).status).toBe(400);
  });
});

test('every route of the users area answers 401 without credentials, on /api/ and /api/cloud/', async () => {
  const { usersRoutes } = await import('../../subgraphs/tenancy/users.routes.js');
  for (const spec of usersRoutes) {
    const path = spec.path.replace(':user', ownerA.slug).replace(':group', '1');
    for (const prefix of ['/api', '/api/cloud']) {
      const res = await t.call(spec.method, prefix + path, { body: ['POST', 'PUT', 'PATCH'].includes(spec.method) ? {} : undefined });
      expect([spec.method, prefix + path, res.status, res.body.code]).toEqual([spec.method, prefix + path, 401, 'not_authenticated']);
    }
  }
});
