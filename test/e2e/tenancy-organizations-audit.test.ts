// Reading the audit trail: an organization's (owners, manage_organization, staff), with the
// entries other modules write for it, and the whole trail (staff only).
import { audit } from '../../subgraphs/tenancy/audit-log.js';
import type { RequestContext } from '../../subgraphs/core/context.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let owner: User;
let member: User;
let staff: User;
let org: { uuid: string; slug: string; id: number };
const tok = (u: User) => t.tokenFor(u);
const sql = (text: string, params: unknown[] = []) => t.platform.pool.query(text, params).then((r) => r.rows);
const trail = (query = '', token = tok(owner)) => t.call('GET', `/api/organizations/${org.slug}/audit/${query}`, { token });

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser({ username: 'auditor' });
  member = await t.createUser({ username: 'member' });
  staff = await t.createUser({ username: 'staffer', isStaff: true });
  const created = (await t.call('POST', '/api/organizations/', { token: tok(owner), body: { name: 'Audited' } })).body;
  org = { ...created, id: (await sql('SELECT id FROM organizations WHERE uuid = $1', [created.uuid]))[0].id };
  await t.call('PATCH', `/api/organizations/${org.slug}/`, { token: tok(owner), body: { name: 'Audited Co' } });
  await sql(`INSERT INTO memberships (organization_id, user_id) VALUES ($1, $2)`, [org.id, member.id]);
  await t.call('PATCH', `/api/organizations/${org.slug}/members/member/`, { token: tok(owner), body: { permissions: ['view_site'] } });
  await t.call('POST', `/api/organizations/${org.slug}/invitations/`, {
    token: tok(owner),
    body: { invitee_identifier: 'someone@example.test' },
  });
  // Another module's entry for this organization (sites, apps, groups… write them the same way).
  const ctx = { principal: { kind: 'api_key', keyId: 1, appId: 1, siteId: 1 } } as unknown as RequestContext;
  await audit(t.platform.prisma, ctx, {
    action: 'create',
    objectType: 'site',
    objectId: 'site-uuid',
    organizationId: org.id,
    siteId: 1,
    changes: { slug: 'shop' },
  });
  // And one for no organization, which only the whole trail shows.
  await audit(t.platform.prisma, ctx, { action: 'update', objectType: 'user', objectId: 'someone' });
});
afterAll(() => t.close());

test('an owner reads the trail, newest first, in the documented shape', async () => {
  const res = await trail();
  expect(res.status).toBe(200);
  expect(res.body.results.map((e: { object_type: string; action: string }) => `${e.object_type}:${e.action}`)).toEqual([
    'site:create',
    'invitation:create',
    'member:update',
    'organization:update',
    'organization:create',
  ]);
  expect(res.body.results[0]).toEqual({
    id: expect.any(Number),
    actor: null,
    action: 'create',
    object_type: 'site',
    object_id: 'site-uuid',
    organization: org.slug,
    changes: { slug: 'shop' },
    created_at: expect.stringMatching(/Z$/),
  });
  expect(res.body.results[3]).toMatchObject({ actor: 'auditor', object_id: org.uuid, changes: { name: 'Audited Co' } });
});

test('filters object_type and action; paging', async () => {
  expect((await trail('?object_type=organization')).body.count).toBe(2);
  expect((await trail('?object_type=organization&action=update')).body.results).toHaveLength(1);
  const page = await trail('?page_size=2&page=2');
  expect(page.body).toMatchObject({ count: 5, next: expect.stringContaining('page=3'), previous: expect.any(String) });
  expect((await trail('?page=0')).status).toBe(400);
});

test('a plain member may not read it (403), manage_organization may, staff may; others get 404, anonymous 401', async () => {
  expect((await trail('', tok(member))).status).toBe(403);
  await sql(`UPDATE memberships SET permissions = '{manage_organization}' WHERE user_id = $1`, [member.id]);
  expect((await trail('', tok(member))).status).toBe(200);
  expect((await trail('', tok(staff))).status).toBe(200);
  expect((await trail('', tok(await t.createUser()))).status).toBe(404);
  expect((await t.call('GET', `/api/organizations/${org.slug}/audit/`)).status).toBe(401);
});

test("a deleted organization's trail, with include_deleted", async () => {
  expect((await t.call('DELETE', `/api/organizations/${org.slug}/`, { token: tok(owner) })).status).toBe(204);
  expect((await trail()).status).toBe(404);
  const res = await trail('?include_deleted=true&action=delete');
  expect(res.status).toBe(200);
  expect(res.body.results[0]).toMatchObject({ object_type: 'organization', action: 'delete', actor: 'auditor' });
  expect((await t.call('POST', `/api/organizations/${org.slug}/restore/`, { token: tok(owner) })).status).toBe(200);
});

test('the whole trail: staff only; filters organization, actor, object_type', async () => {
  const all = await t.call('GET', '/api/audit/', { token: tok(staff) });
  expect(all.status).toBe(200);
  expect(
    all.body.results.some((e: { object_type: string; organization: string | null }) => e.object_type === 'user' && e.organization === null),
  ).toBe(true);
  const mine = await t.call('GET', `/api/audit/?organization=${org.uuid}&actor=auditor&object_type=organization`, { token: tok(staff) });
  expect(mine.body.results.map((e: { action: string }) => e.action)).toEqual(['restore', 'delete', 'update', 'create']);
  expect((await t.call('GET', '/api/audit/?organization=nowhere', { token: tok(staff) })).status).toBe(404);
  expect((await t.call('GET', '/api/audit/', { token: tok(owner) })).status).toBe(403);
  expect((await t.call('GET', '/api/audit/')).status).toBe(401);
});
