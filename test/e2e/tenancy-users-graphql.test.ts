// The users area through GraphQL: the same service functions as REST, so the same results
// and the same error codes (extensions.code).
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg } from '../support/tenants.js';
import { GRAPHQL_USER_FIELDS, restUserAsGraphql } from '../support/user-views.js';

let t: TestApp;
let root: User;
let staff: User;
let owner: User;
let member: User;
let outsider: User;

const gql = (query: string, variables: Record<string, unknown> = {}, token?: string) =>
  t.call('POST', '/graphql', { body: { query, variables }, token });

const GROUP_FIELDS = 'id name scope organization { slug } permissions users { id username }';

const codeOf = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

beforeAll(async () => {
  t = await startTestApp();
  root = await t.createUser({ isSuperuser: true, isStaff: true });
  staff = await t.createUser({ isStaff: true });
  owner = await t.createUser({ username: 'gq-owner' });
  member = await t.createUser({ username: 'gq-member' });
  outsider = await t.createUser({ username: 'gq-outsider' });
  const org = await insertOrg(t.platform, 'gq-org', owner.id);
  await t.platform.pool.query('INSERT INTO memberships (organization_id, user_id) VALUES ($1, $2)', [org.id, member.id]);
  await insertOrg(t.platform, 'gq-other', outsider.id);
});
afterAll(() => t.close());

test('users() and user() answer what GET /api/users/ and /api/users/{user}/ answer', async () => {
  const token = t.tokenFor(owner);
  const rest = await t.call('GET', '/api/users/?organization_slug=gq-org&search=gq', { token });
  const graph = await gql(
    `query { users(organizationSlug: "gq-org", search: "gq") { items { ${GRAPHQL_USER_FIELDS} } total page pageSize } }`,
    {},
    token,
  );
  expect(graph.body.errors).toBeUndefined();
  expect(graph.body.data.users).toEqual({ items: rest.body.results.map(restUserAsGraphql), total: rest.body.count, page: 1, pageSize: 20 });
  expect(graph.body.data.users.items.map((u: any) => u.username)).toEqual(['gq-member', 'gq-owner']);

  const one = await gql(`query { user(slug: "${member.slug}") { ${GRAPHQL_USER_FIELDS} profile { timezone } } }`, {}, token);
  const oneRest = await t.call('GET', `/api/users/${member.slug}/`, { token });
  expect(one.body.data.user).toEqual({ ...restUserAsGraphql(oneRest.body), profile: null });
  const hidden = await gql(`query { user(slug: "${outsider.slug}") { id } }`, {}, token);
  expect(codeOf(hidden)).toBe('not_found');
  expect(codeOf(await gql('query { users { total } }'))).toBe('not_authenticated');
});

test('createUser / updateUser / deleteUser match REST, errors carry the REST codes', async () => {
  const staffToken = t.tokenFor(staff);
  const created = await gql(
    `mutation($input: CreateUserInput!) { createUser(input: $input) { ${GRAPHQL_USER_FIELDS} } }`,
    { input: { username: 'graph.user', email: 'graph@example.test', password: 'long enough password', firstName: 'G' } },
    staffToken,
  );
  expect(created.body.errors).toBeUndefined();
  const rest = await t.call('GET', '/api/users/graph-user/', { token: staffToken });
  expect(created.body.data.createUser).toEqual(restUserAsGraphql(rest.body));

  const dup = await gql(
    `mutation { createUser(input: {username: "graph.user", email: "a@b.test", password: "long enough password"}) { id } }`,
    {},
    staffToken,
  );
  expect(codeOf(dup)).toBe('conflict');
  const invalid = await gql(
    `mutation { createUser(input: {username: "bad name", email: "nope", password: "short"}) { id } }`,
    {},
    staffToken,
  );
  expect(codeOf(invalid)).toBe('invalid');
  expect(Object.keys(invalid.body.errors[0].extensions.errors).sort()).toEqual(['email', 'password', 'username']);
  const escalate = await gql(
    `mutation { createUser(input: {username: "x1", email: "x@b.test", password: "long enough password", isStaff: true}) { id } }`,
    {},
    staffToken,
  );
  expect(codeOf(escalate)).toBe('permission_denied');

  const updated = await gql(
    `mutation { updateUser(slug: "graph-user", input: {lastName: "Raph"}) { ${GRAPHQL_USER_FIELDS} } }`,
    {},
    staffToken,
  );
  const afterRest = await t.call('GET', '/api/users/graph-user/', { token: staffToken });
  expect(updated.body.data.updateUser).toEqual(restUserAsGraphql(afterRest.body));
  expect(afterRest.body.last_name).toBe('Raph');

  const deleted = await gql('mutation { deleteUser(slug: "graph-user") { slug isActive } }', {}, staffToken);
  expect(deleted.body.data.deleteUser).toEqual({ slug: 'graph-user', isActive: false });
  expect((await t.call('GET', '/api/users/graph-user/', { token: staffToken })).status).toBe(404);
  expect(codeOf(await gql(`mutation { deleteUser(slug: "${outsider.slug}") { id } }`, {}, t.tokenFor(owner)))).toBe('not_found');
});

test('updateProfile matches PATCH /profile/; User.profile shows it to the user', async () => {
  const token = t.tokenFor(member);
  const res = await gql(
    `mutation($input: UpdateProfileInput!) { updateProfile(slug: "${member.slug}", input: $input) { bio avatarUrl phone timezone locale attributes } }`,
    { input: { bio: 'Graph', timezone: 'America/New_York', attributes: { k: [1, 2] } } },
    token,
  );
  expect(res.body.errors).toBeUndefined();
  const rest = await t.call('GET', `/api/users/${member.slug}/profile/`, { token });
  const { user: _user, avatar_url, ...same } = rest.body;
  expect(res.body.data.updateProfile).toEqual({ ...same, avatarUrl: avatar_url });
  const me = await gql('query { me { username profile { bio } } }', {}, token);
  expect(me.body.data.me).toEqual({ username: 'gq-member', profile: { bio: 'Graph' } });
  const bad = await gql(`mutation { updateProfile(slug: "${member.slug}", input: {timezone: "Nowhere/Land"}) { bio } }`, {}, token);
  expect(codeOf(bad)).toBe('invalid');
  expect(bad.body.errors[0].extensions.errors.timezone).toBeDefined();
});

test('groups: create, add and remove members, update, list, delete match REST', async () => {
  const token = t.tokenFor(owner);
  const created = await gql(
    `mutation { createGroup(input: {name: "Graph group", organization: "gq-org", permissions: ["view_site"]}) { ${GROUP_FIELDS} } }`,
    {},
    token,
  );
  expect(created.body.errors).toBeUndefined();
  const g = created.body.data.createGroup;
  expect(g).toEqual({
    id: expect.any(String),
    name: 'Graph group',
    scope: 'organization',
    organization: { slug: 'gq-org' },
    permissions: ['view_site'],
    users: [],
  });

  const added = await gql(`mutation { addGroupMember(id: "${g.id}", user: "gq-member") { ${GROUP_FIELDS} } }`, {}, token);
  expect(added.body.data.addGroupMember.users).toEqual([{ id: member.uuid, username: 'gq-member' }]);
  const rest = await t.call('GET', `/api/groups/${g.id}/`, { token });
  expect(rest.body).toMatchObject({
    id: Number(g.id),
    organization: 'gq-org',
    permissions: ['view_site'],
    users: [{ uuid: member.uuid, username: 'gq-member' }],
  });
  const outside = await gql(`mutation { addGroupMember(id: "${g.id}", user: "gq-outsider") { id } }`, {}, token);
  expect(codeOf(outside)).toBe('invalid');

  const list = await gql(`query { groups(organizationSlug: "gq-org") { items { ${GROUP_FIELDS} } total } }`, {}, t.tokenFor(member));
  const restList = await t.call('GET', '/api/groups/?organization_slug=gq-org', { token: t.tokenFor(member) });
  expect(list.body.data.groups.total).toBe(restList.body.count);
  expect(list.body.data.groups.items.map((x: any) => x.id)).toEqual(restList.body.results.map((x: any) => String(x.id)));
  expect((await gql(`query { group(id: "${g.id}") { name } }`, {}, t.tokenFor(member))).body.data.group.name).toBe('Graph group');
  expect(codeOf(await gql(`query { group(id: "${g.id}") { name } }`, {}, t.tokenFor(outsider)))).toBe('not_found');

  const unknownPerm = await gql(`mutation { updateGroup(id: "${g.id}", input: {permissions: ["warp_drive"]}) { id } }`, {}, token);
  expect(codeOf(unknownPerm)).toBe('invalid');
  const renamed = await gql(`mutation { updateGroup(id: "${g.id}", input: {name: "Renamed"}) { name permissions } }`, {}, token);
  expect(renamed.body.data.updateGroup).toEqual({ name: 'Renamed', permissions: ['view_site'] });
  expect(codeOf(await gql(`mutation { updateGroup(id: "${g.id}", input: {name: "X"}) { id } }`, {}, t.tokenFor(member)))).toBe(
    'permission_denied',
  );

  const removed = await gql(`mutation { removeGroupMember(id: "${g.id}", user: "${member.slug}") { users { id } } }`, {}, token);
  expect(removed.body.data.removeGroupMember.users).toEqual([]);
  expect((await gql(`mutation { deleteGroup(id: "${g.id}") { id name } }`, {}, token)).body.data.deleteGroup).toEqual({
    id: g.id,
    name: 'Renamed',
  });
  expect((await t.call('GET', `/api/groups/${g.id}/`, { token })).status).toBe(404);
  const platform = await gql('mutation { createGroup(input: {name: "P"}) { id } }', {}, t.tokenFor(staff));
  expect(codeOf(platform)).toBe('permission_denied');
  expect(
    (await gql('mutation { createGroup(input: {name: "P"}) { scope organization { slug } } }', {}, t.tokenFor(root))).body.data.createGroup,
  ).toEqual({
    scope: 'platform',
    organization: null,
  });
});

test('permissions() matches GET /api/permissions/', async () => {
  const token = t.tokenFor(outsider);
  const graph = await gql('query { permissions(resource: "site") { codename name resource } }', {}, token);
  const rest = await t.call('GET', '/api/permissions/?resource=site', { token });
  expect(graph.body.data.permissions).toEqual(rest.body.results);
  expect((await gql('query { permissions { codename } }', {}, token)).body.data.permissions.length).toBe(
    (await t.call('GET', '/api/permissions/', { token })).body.count,
  );
});
