// Members of an organization: list and read (any member), role and permission changes
// (owners, manage_organization), removal and leaving, and the last owner who always stays.
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertSite } from '../support/tenants.js';

let t: TestApp;
let owner: User;
let alice: User;
let bob: User;
let outsider: User;
let org: { id: number; uuid: string; slug: string };
const base = () => `/api/organizations/${org.slug}/members/`;
const tok = (u: User) => t.tokenFor(u);
const sql = (text: string, params: unknown[] = []) => t.platform.pool.query(text, params).then((r) => r.rows);

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser({ username: 'olivia', email: 'olivia@example.test' });
  alice = await t.createUser({ username: 'alice', email: 'alice@example.test' });
  bob = await t.createUser({ username: 'bob', email: 'bob@example.test' });
  outsider = await t.createUser();
  const res = await t.call('POST', '/api/organizations/', { token: tok(owner), body: { name: 'Members Inc' } });
  const [row] = await sql('SELECT id FROM organizations WHERE uuid = $1', [res.body.uuid]);
  org = { ...res.body, id: row.id };
  await sql(
    `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{view_site}'), ($1, $3, 'member', '{}')`,
    [org.id, alice.id, bob.id],
  );
});
afterAll(() => t.close());

describe('list and read', () => {
  test('items {uuid, slug, username, email, role, permissions, joined_at}, ordered by username; members may list', async () => {
    const res = await t.call('GET', base(), { token: tok(bob) });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
    expect(res.body.results[0]).toEqual({
      uuid: alice.uuid,
      slug: alice.slug,
      username: 'alice',
      email: 'alice@example.test',
      role: 'member',
      permissions: ['view_site'],
      joined_at: expect.stringMatching(/Z$/),
    });
    expect(res.body.results.map((m: { username: string; role: string }) => [m.username, m.role])).toEqual([
      ['alice', 'member'],
      ['bob', 'member'],
      ['olivia', 'owner'],
    ]);
  });

  test('search, role filter, ordering and paging; bad values are 400', async () => {
    expect(
      (await t.call('GET', `${base()}?search=ALICE`, { token: tok(owner) })).body.results.map((m: { username: string }) => m.username),
    ).toEqual(['alice']);
    expect(
      (await t.call('GET', `${base()}?role=owner`, { token: tok(owner) })).body.results.map((m: { username: string }) => m.username),
    ).toEqual(['olivia']);
    expect((await t.call('GET', `${base()}?ordering=-username&page_size=1`, { token: tok(owner) })).body).toMatchObject({
      count: 3,
      results: [{ username: 'olivia' }],
    });
    expect((await t.call('GET', `${base()}?role=admin`, { token: tok(owner) })).status).toBe(400);
    expect((await t.call('GET', `${base()}?ordering=password`, { token: tok(owner) })).status).toBe(400);
  });

  test('one member by user slug or UUID; a non-member user is 404; outsiders and anonymous are refused', async () => {
    expect((await t.call('GET', `${base()}${alice.slug}/`, { token: tok(bob) })).body.username).toBe('alice');
    expect((await t.call('GET', `${base()}${alice.uuid}/`, { token: tok(bob) })).body.username).toBe('alice');
    expect((await t.call('GET', `${base()}${outsider.slug}/`, { token: tok(owner) })).status).toBe(404);
    expect((await t.call('GET', base(), { token: tok(outsider) })).status).toBe(404);
    expect((await t.call('GET', base())).status).toBe(401);
  });

  test('a soft-deleted user is not listed', async () => {
    const ghost = await t.createUser();
    await sql(`INSERT INTO memberships (organization_id, user_id) VALUES ($1, $2)`, [org.id, ghost.id]);
    await sql('UPDATE users SET is_deleted = true, is_active = false WHERE id = $1', [ghost.id]);
    const res = await t.call('GET', base(), { token: tok(owner) });
    expect(res.body.results.map((m: { username: string }) => m.username)).not.toContain(ghost.username);
    expect((await t.call('GET', `${base()}${ghost.slug}/`, { token: tok(owner) })).status).toBe(404);
  });
});

describe('change', () => {
  test('the owner changes permissions (sorted, deduplicated) and role; audited', async () => {
    const res = await t.call('PATCH', `${base()}${bob.slug}/`, {
      token: tok(owner),
      body: { permissions: ['view_site', 'data:read', 'view_site'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ username: 'bob', role: 'member', permissions: ['data:read', 'view_site'] });
    const [audit] = await sql(`SELECT action, changes, organization_id FROM audit_log WHERE object_type = 'member' AND object_id = $1`, [
      bob.uuid,
    ]);
    expect(audit).toEqual({ action: 'update', organization_id: org.id, changes: { user: 'bob', permissions: ['data:read', 'view_site'] } });
  });

  test('unknown permissions are 400 naming them; a bad role is 400', async () => {
    const res = await t.call('PATCH', `${base()}${bob.slug}/`, {
      token: tok(owner),
      body: { permissions: ['view_site', 'fly', 'teleport'] },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('"fly"');
    expect(res.body.errors.permissions[0]).toContain('"teleport"');
    expect((await t.call('PATCH', `${base()}${bob.slug}/`, { token: tok(owner), body: { role: 'admin' } })).body.errors.role).toBeDefined();
    expect((await t.call('PATCH', `${base()}${bob.slug}/`, { token: tok(owner), body: { permissions: 'view_site' } })).status).toBe(400);
  });

  test('a plain member may not change anyone (403); manage_organization may', async () => {
    expect((await t.call('PATCH', `${base()}${alice.slug}/`, { token: tok(bob), body: { permissions: [] } })).status).toBe(403);
    await sql(`UPDATE memberships SET permissions = '{manage_organization}' WHERE user_id = $1 AND organization_id = $2`, [bob.id, org.id]);
    const res = await t.call('PATCH', `${base()}${alice.slug}/`, { token: tok(bob), body: { permissions: ['change_site'] } });
    expect(res.status).toBe(200);
    expect(res.body.permissions).toEqual(['change_site']);
  });

  test('the last owner can be neither demoted nor removed (400); with a second owner both work', async () => {
    const demote = await t.call('PATCH', `${base()}${owner.slug}/`, { token: tok(owner), body: { role: 'member' } });
    expect(demote.status).toBe(400);
    expect(demote.body.detail).toContain('at least one owner');
    expect((await t.call('DELETE', `${base()}${owner.slug}/`, { token: tok(owner) })).status).toBe(400);
    expect((await t.call('PATCH', `${base()}${alice.uuid}/`, { token: tok(owner), body: { role: 'owner' } })).body.role).toBe('owner');
    expect((await t.call('PATCH', `${base()}${owner.slug}/`, { token: tok(alice), body: { role: 'member' } })).body.role).toBe('member');
    // Alice is now the only owner.
    expect((await t.call('PATCH', `${base()}${alice.slug}/`, { token: tok(alice), body: { role: 'member' } })).status).toBe(400);
    expect((await t.call('PATCH', `${base()}${owner.slug}/`, { token: tok(alice), body: { role: 'owner' } })).status).toBe(200);
  });

  test('concurrent demotions of two owners leave one owner', async () => {
    const results = await Promise.all([
      t.call('PATCH', `${base()}${owner.slug}/`, { token: tok(alice), body: { role: 'member' } }),
      t.call('PATCH', `${base()}${alice.slug}/`, { token: tok(owner), body: { role: 'member' } }),
    ]);
    // One demotion wins. The other is refused: 400 (it would leave no owner) when it reads the
    // memberships while both are owners, or 403 when its caller was demoted first.
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect([400, 403]).toContain(statuses[1]);
    const [{ n }] = await sql(`SELECT count(*)::int AS n FROM memberships WHERE organization_id = $1 AND role = 'owner'`, [org.id]);
    expect(n).toBe(1);
    await sql(`UPDATE memberships SET role = 'owner' WHERE organization_id = $1 AND user_id = $2`, [org.id, owner.id]);
  });

  test('outsiders get 404 for the member routes; an unknown member is 404', async () => {
    expect((await t.call('PATCH', `${base()}${bob.slug}/`, { token: tok(outsider), body: { role: 'owner' } })).status).toBe(404);
    expect((await t.call('DELETE', `${base()}${bob.slug}/`, { token: tok(outsider) })).status).toBe(404);
    expect((await t.call('PATCH', `${base()}nobody/`, { token: tok(owner), body: { role: 'owner' } })).status).toBe(404);
  });
});

describe('remove', () => {
  test('removing a member also removes their groups of the organization and grants on its sites', async () => {
    const carol = await t.createUser({ username: 'carol' });
    const site = await insertSite(t.platform, org.id, 'members-site', 'members.example.test');
    await sql(`INSERT INTO memberships (organization_id, user_id) VALUES ($1, $2)`, [org.id, carol.id]);
    const [group] = await sql(`INSERT INTO groups (name, scope, organization_id) VALUES ('crew', 'organization', $1) RETURNING id`, [
      org.id,
    ]);
    const [platformGroup] = await sql(`INSERT INTO groups (name, scope) VALUES ('everyone', 'platform') RETURNING id`);
    await sql(`INSERT INTO group_members (group_id, user_id) VALUES ($1, $3), ($2, $3)`, [group.id, platformGroup.id, carol.id]);
    await sql(`INSERT INTO object_permissions (user_id, permission, object_type, object_id) VALUES ($1, 'view_site', 'site', $2)`, [
      carol.id,
      site.id,
    ]);

    // Bob holds manage_organization.
    expect((await t.call('DELETE', `${base()}carol/`, { token: tok(bob) })).status).toBe(204);
    expect(await sql(`SELECT group_id FROM group_members WHERE user_id = $1`, [carol.id])).toEqual([{ group_id: platformGroup.id }]);
    expect(await sql(`SELECT id FROM object_permissions WHERE user_id = $1`, [carol.id])).toEqual([]);
    expect((await t.call('GET', `/api/organizations/${org.slug}/`, { token: tok(carol) })).status).toBe(404);
    const [audit] = await sql(`SELECT action, changes FROM audit_log WHERE object_type = 'member' AND object_id = $1`, [carol.uuid]);
    expect(audit).toEqual({ action: 'delete', changes: { user: 'carol', role: 'member' } });
  });

  test('a member may leave; may not remove someone else', async () => {
    const dave = await t.createUser({ username: 'dave' });
    await sql(`INSERT INTO memberships (organization_id, user_id) VALUES ($1, $2)`, [org.id, dave.id]);
    expect((await t.call('DELETE', `${base()}bob/`, { token: tok(dave) })).status).toBe(403);
    expect((await t.call('DELETE', `${base()}dave/`, { token: tok(dave) })).status).toBe(204);
    expect((await t.call('GET', `${base()}dave/`, { token: tok(bob) })).status).toBe(404);
  });
});
