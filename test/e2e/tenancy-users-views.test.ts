// The REST views of users, profiles, groups, members, invitations, API keys and the audit trail,
// rendered from the services' domain objects (users-views.ts): the seed's fields in the seed's
// order (the bytes clients see), and the GraphQL types mapped from the same objects with the
// same values.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { GRAPHQL_USER_FIELDS, restUserAsGraphql } from '../support/user-views.js';

const HOST = 'views-users.localhost';

let t: TestApp;
let token: string;
let staffId: number;

const gql = async (query: string, opts: { host?: string; token?: string | null } = {}) => {
  const res = await t.call('POST', '/graphql', {
    body: { query },
    token: opts.token === null ? undefined : (opts.token ?? token),
    host: opts.host,
  });
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
};
const keysOf = (o: object) => Object.keys(o);

const USER = [
  'uuid',
  'slug',
  'username',
  'email',
  'first_name',
  'last_name',
  'is_staff',
  'is_superuser',
  'is_active',
  'date_joined',
  'last_login',
];
const PROFILE = ['user', 'bio', 'avatar_url', 'phone', 'timezone', 'locale', 'attributes'];
const GROUP = ['id', 'name', 'scope', 'organization', 'permissions', 'users', 'created_at', 'updated_at'];
const MEMBER = ['uuid', 'slug', 'username', 'email', 'role', 'permissions', 'joined_at'];
const INVITATION = ['uuid', 'invitee_identifier', 'permissions', 'invitation_config', 'status', 'expires_at', 'created_at', 'invited_by'];
const PUBLIC_INVITATION = ['uuid', 'organization', 'invitee_identifier', 'permissions', 'status', 'expires_at'];
const API_KEY = ['id', 'uuid', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'];
const AUDIT = ['id', 'actor', 'action', 'object_type', 'object_id', 'organization', 'changes', 'created_at'];

beforeAll(async () => {
  t = await startTestApp();
  const staff = await t.createUser({ isStaff: true, isSuperuser: true });
  [token, staffId] = [t.tokenFor(staff), staff.id];
});
afterAll(() => t.close());

test('users and profiles: the seed fields in order on every route; GraphQL maps the same values', async () => {
  const me = await t.call('GET', '/api/users/me/', { token });
  expect(keysOf(me.body)).toEqual(USER);
  expect((await gql(`{ me { ${GRAPHQL_USER_FIELDS} } }`)).me).toEqual(restUserAsGraphql(me.body));

  const created = await t.call('POST', '/api/users/', {
    token,
    body: { username: 'views_user', email: 'views@example.test', password: 'correct horse battery', first_name: 'Vi' },
  });
  expect(created.status).toBe(201);
  expect(keysOf(created.body)).toEqual(USER);
  expect(created.text).toBe(JSON.stringify(created.body));
  const one = await t.call('GET', '/api/users/views-user/', { token });
  expect(one.text).toBe(created.text);
  const list = await t.call('GET', '/api/users/?search=views_user', { token });
  expect(list.body.results.map(keysOf)).toEqual([USER]);
  const patched = await t.call('PATCH', '/api/users/views-user/', { token, body: { last_name: 'Ews' } });
  expect(keysOf(patched.body)).toEqual(USER);
  expect(patched.body).toMatchObject({ first_name: 'Vi', last_name: 'Ews', is_active: true, last_login: null });
  expect((await gql(`{ user(slug: "views-user") { ${GRAPHQL_USER_FIELDS} } }`)).user).toEqual(restUserAsGraphql(patched.body));

  const profile = await t.call('PATCH', '/api/users/views-user/profile/', { token, body: { bio: 'hi', attributes: { a: 1 } } });
  expect(keysOf(profile.body)).toEqual(PROFILE);
  expect(profile.body).toEqual({
    user: created.body.uuid,
    bio: 'hi',
    avatar_url: '',
    phone: '',
    timezone: 'UTC',
    locale: 'en',
    attributes: { a: 1 },
  });
  expect((await t.call('GET', '/api/users/views-user/profile/', { token })).text).toBe(profile.text);
  const g = await gql('{ user(slug: "views-user") { profile { bio avatarUrl phone timezone locale attributes } } }');
  expect(g.user.profile).toEqual({ bio: 'hi', avatarUrl: '', phone: '', timezone: 'UTC', locale: 'en', attributes: { a: 1 } });

  expect((await t.call('DELETE', '/api/users/views-user/', { token })).status).toBe(204);
  const restored = await t.call('POST', '/api/users/views-user/restore/', { token });
  expect(keysOf(restored.body)).toEqual(USER);
  expect(restored.body.is_active).toBe(true);
});

test('groups, members, invitations and the audit trail: the seed fields in order; GraphQL maps the same values', async () => {
  const group = await t.call('POST', '/api/groups/', { token, body: { name: 'Views Group', permissions: ['view_site'] } });
  expect(group.status).toBe(201);
  expect(keysOf(group.body)).toEqual(GROUP);
  const added = await t.call('POST', `/api/groups/${group.body.id}/users/`, { token, body: { user: 'views_user' } });
  expect(keysOf(added.body)).toEqual(GROUP);
  expect(added.body.users.map(keysOf)).toEqual([['uuid', 'username']]);
  expect((await t.call('GET', `/api/groups/${group.body.id}/`, { token })).text).toBe(added.text);
  const gg = await gql(`{ group(id: "${group.body.id}") { id name scope permissions users { id username } createdAt updatedAt } }`);
  expect(gg.group).toEqual({
    id: String(added.body.id),
    name: 'Views Group',
    scope: 'platform',
    permissions: ['view_site'],
    users: added.body.users.map((u: any) => ({ id: u.uuid, username: u.username })),
    createdAt: added.body.created_at,
    updatedAt: added.body.updated_at,
  });

  expect((await t.call('POST', '/api/organizations/', { token, body: { name: 'Views Team', slug: 'views-team' } })).status).toBe(201);
  const members = await t.call('GET', '/api/organizations/views-team/members/', { token });
  expect(members.body.results.map(keysOf)).toEqual([MEMBER]);
  const owner = members.body.results[0];
  const member = await t.call('GET', `/api/organizations/views-team/members/${owner.slug}/`, { token });
  expect(member.text).toBe(JSON.stringify(owner));
  const gm = await gql(
    `{ member(organization: "views-team", user: "${owner.slug}") { id slug username email role permissions joinedAt } }`,
  );
  expect(gm.member).toEqual({ ...owner, id: owner.uuid, uuid: undefined, joined_at: undefined, joinedAt: owner.joined_at });

  const invited = await t.call('POST', '/api/organizations/views-team/invitations/', {
    token,
    body: { invitee_identifier: 'invitee@views.test', permissions: ['view_organization'] },
  });
  expect(invited.status).toBe(201);
  expect(keysOf(invited.body)).toEqual([...INVITATION, 'token']);
  expect(invited.body.invitation_config).toEqual({ group: [], site: [] });
  const { token: invitationToken, ...invitation } = invited.body;
  const invitations = await t.call('GET', '/api/organizations/views-team/invitations/', { token });
  expect(invitations.body.results).toEqual([invitation]);
  expect(invitations.body.results.map(keysOf)).toEqual([INVITATION]);
  const gi = await gql(
    '{ organization(slug: "views-team") { invitations { items { id inviteeIdentifier permissions invitationConfig { group site { slug permissions } } status expiresAt createdAt invitedBy } } } }',
  );
  expect(gi.organization.invitations.items).toEqual([
    {
      id: invitation.uuid,
      inviteeIdentifier: invitation.invitee_identifier,
      permissions: invitation.permissions,
      invitationConfig: invitation.invitation_config,
      status: invitation.status,
      expiresAt: invitation.expires_at,
      createdAt: invitation.created_at,
      invitedBy: invitation.invited_by,
    },
  ]);

  const pub = await t.call('GET', `/api/invitations/${invitationToken}/`);
  expect(keysOf(pub.body)).toEqual(PUBLIC_INVITATION);
  expect(keysOf(pub.body.organization)).toEqual(['uuid', 'slug', 'name']);
  const gp = await gql(
    `{ invitation(token: "${invitationToken}") { id organization { id slug name } inviteeIdentifier permissions status expiresAt } }`,
    { token: null },
  );
  expect(gp.invitation).toEqual({
    id: pub.body.uuid,
    organization: { id: pub.body.organization.uuid, slug: pub.body.organization.slug, name: pub.body.organization.name },
    inviteeIdentifier: pub.body.invitee_identifier,
    permissions: pub.body.permissions,
    status: pub.body.status,
    expiresAt: pub.body.expires_at,
  });
  const accepted = await t.call('POST', `/api/invitations/${invitationToken}/accept/`, {
    body: { username: 'views_invitee', password: 'correct horse battery' },
  });
  expect(accepted.status).toBe(200);
  expect(keysOf(accepted.body)).toEqual(['status', 'organization', 'member']);
  expect(accepted.body.organization).toEqual(pub.body.organization);
  expect(keysOf(accepted.body.member)).toEqual(MEMBER);
  expect(accepted.body.member).toMatchObject({ username: 'views_invitee', role: 'member', permissions: ['view_organization'] });

  const trail = await t.call('GET', '/api/organizations/views-team/audit/', { token });
  expect(trail.body.results.length).toBeGreaterThan(1);
  for (const entry of trail.body.results) expect(keysOf(entry)).toEqual(AUDIT);
  const ga = await gql(
    '{ organization(slug: "views-team") { auditEntries { items { id actor action objectType objectId organization changes createdAt } } } }',
  );
  expect(ga.organization.auditEntries.items).toEqual(
    trail.body.results.map((a: any) => ({
      id: String(a.id),
      actor: a.actor,
      action: a.action,
      objectType: a.object_type,
      objectId: a.object_id,
      organization: a.organization,
      changes: a.changes,
      createdAt: a.created_at,
    })),
  );
  const all = await t.call('GET', '/api/audit/?organization=views-team', { token });
  expect(all.body.results).toEqual(trail.body.results);
});

test('API keys: the seed fields in order, the key beside them once; GraphQL maps the same values', async () => {
  const org = await insertOrg(t.platform, 'views-keys', staffId);
  const site = await insertSite(t.platform, org.id, 'views-keys', HOST);
  await insertApp(t.platform, site.id, 'views-app');
  const created = await t.call('POST', '/api/apps/views-app/api-keys/', { token, host: HOST, body: { name: 'ci' } });
  expect(created.status).toBe(201);
  expect(keysOf(created.body)).toEqual([...API_KEY, 'key']);
  const { key: _key, ...apiKey } = created.body;
  const list = await t.call('GET', '/api/apps/views-app/api-keys/', { token, host: HOST });
  expect(list.body.results).toEqual([apiKey]);
  expect(list.body.results.map(keysOf)).toEqual([API_KEY]);
  const g = await gql('{ apiKeys(app: "views-app") { items { id keyId name prefix createdAt lastUsedAt revokedAt } } }', { host: HOST });
  expect(g.apiKeys.items).toEqual([
    {
      id: apiKey.uuid,
      keyId: apiKey.id,
      name: 'ci',
      prefix: apiKey.prefix,
      createdAt: apiKey.created_at,
      lastUsedAt: null,
      revokedAt: null,
    },
  ]);
});
