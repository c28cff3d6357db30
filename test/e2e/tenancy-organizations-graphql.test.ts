// The organizations area over GraphQL: the same service functions as REST, so the same
// answers (compared field by field) and the same error codes in `extensions.code`.
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { startGraphqlWorld, type GraphqlWorld } from './graphql-fixtures.js';

let t: TestApp;
let owner: User;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser({ username: 'gqlowner', email: 'gqlowner@example.test' });
  token = t.tokenFor(owner);
});
afterAll(() => t.close());

async function gql(query: string, variables: Record<string, unknown> = {}, auth: string | null = token) {
  const res = await t.call('POST', '/graphql', { token: auth ?? undefined, body: { query, variables } });
  expect(res.status).toBe(200);
  return res.body as {
    data: Record<string, any> | null;
    errors?: { message: string; extensions: { code: string; errors?: Record<string, string[]> } }[];
  };
}

const ORG_FIELDS = 'id slug name isActive createdAt updatedAt';
const MEMBER_FIELDS = 'id slug username email role permissions joinedAt';
const INVITATION_FIELDS =
  'id inviteeIdentifier permissions invitationConfig { group site { slug permissions } } status expiresAt createdAt invitedBy';

test('createOrganization, updateOrganization: as REST, with the same checks', async () => {
  const { data } = await gql(`mutation { createOrganization(input: {name: "Graph Org"}) { ${ORG_FIELDS} } }`);
  const rest = await t.call('GET', `/api/organizations/${data!.createOrganization.slug}/`, { token });
  expect(data!.createOrganization).toEqual({
    id: rest.body.uuid,
    slug: 'graph-org',
    name: 'Graph Org',
    isActive: true,
    createdAt: rest.body.created,
    updatedAt: rest.body.updated,
  });
  const updated = await gql(`mutation { updateOrganization(slug: "graph-org", input: {name: "Graph Org 2"}) { slug name } }`);
  expect(updated.data!.updateOrganization).toEqual({ slug: 'graph-org', name: 'Graph Org 2' });
  const bad = await gql(`mutation { createOrganization(input: {name: "X", slug: "Not Valid"}) { id } }`);
  expect(bad.errors![0].extensions).toMatchObject({ code: 'invalid', errors: { slug: expect.any(Array) } });
  const taken = await gql(`mutation { createOrganization(input: {name: "X", slug: "graph-org"}) { id } }`);
  expect(taken.errors![0].extensions.code).toBe('conflict');
  expect((await gql(`mutation { createOrganization(input: {name: "X"}) { id } }`, {}, null)).errors![0].extensions.code).toBe(
    'not_authenticated',
  );
});

test('Organization.members equals the REST member list; updateMember and removeMember', async () => {
  const other = await t.createUser({ username: 'gqlmember' });
  await t.platform.pool.query(
    `INSERT INTO memberships (organization_id, user_id) SELECT id, $1 FROM organizations WHERE slug = 'graph-org'`,
    [other.id],
  );
  const { data } = await gql(`{ organization(slug: "graph-org") { members { total page pageSize items { ${MEMBER_FIELDS} } } } }`);
  const rest = await t.call('GET', '/api/organizations/graph-org/members/', { token });
  expect(data!.organization.members).toMatchObject({ total: rest.body.count, page: 1, pageSize: 20 });
  expect(data!.organization.members.items).toEqual(
    rest.body.results.map((m: Record<string, unknown>) => ({
      id: m.uuid,
      slug: m.slug,
      username: m.username,
      email: m.email,
      role: m.role,
      permissions: m.permissions,
      joinedAt: m.joined_at,
    })),
  );
  const changed = await gql(
    `mutation { updateMember(organization: "graph-org", user: "gqlmember", input: {role: "owner", permissions: ["view_site"]}) { role permissions } }`,
  );
  expect(changed.data!.updateMember).toEqual({ role: 'owner', permissions: ['view_site'] });
  expect((await t.call('GET', '/api/organizations/graph-org/members/gqlmember/', { token })).body).toMatchObject({
    role: 'owner',
    permissions: ['view_site'],
  });
  const unknown = await gql(
    `mutation { updateMember(organization: "graph-org", user: "gqlmember", input: {permissions: ["fly"]}) { role } }`,
  );
  expect(unknown.errors![0]).toMatchObject({ message: expect.stringContaining('"fly"'), extensions: { code: 'invalid' } });
  expect(
    (await gql(`mutation { removeMember(organization: "graph-org", user: "gqlmember") { username role } }`)).data!.removeMember,
  ).toEqual({
    username: 'gqlmember',
    role: 'owner',
  });
  const last = await gql(`mutation { removeMember(organization: "graph-org", user: "gqlowner") { id } }`);
  expect(last.errors![0].extensions.code).toBe('invalid');
  const { data: after } = await gql(`{ member(organization: "graph-org", user: "gqlowner") { role } }`);
  expect(after!.member.role).toBe('owner');
});

test('createInvitation, Organization.invitations, invitation, acceptInvitation: as REST', async () => {
  const [group] = (
    await t.platform.pool.query(
      `INSERT INTO groups (name, scope, organization_id) SELECT 'g', 'organization', id FROM organizations WHERE slug = 'graph-org' RETURNING id`,
    )
  ).rows;
  const created = await gql(
    `mutation($input: CreateInvitationInput!) { createInvitation(organization: "graph-org", input: $input) { token invitation { ${INVITATION_FIELDS} } } }`,
    {
      input: {
        inviteeIdentifier: 'gqlinvitee@example.test',
        permissions: ['view_organization'],
        invitationConfig: { group: [String(group.id)] },
      },
    },
  );
  const { token: invitationToken, invitation } = created.data!.createInvitation;
  const rest = await t.call('GET', '/api/organizations/graph-org/invitations/', { token });
  const item = rest.body.results.find((i: { uuid: string }) => i.uuid === invitation.id);
  expect(invitation).toEqual({
    id: item.uuid,
    inviteeIdentifier: item.invitee_identifier,
    permissions: item.permissions,
    invitationConfig: { group: [String(group.id)], site: [] },
    status: 'pending',
    expiresAt: item.expires_at,
    createdAt: item.created_at,
    invitedBy: 'gqlowner',
  });
  const listed = await gql(`{ organization(slug: "graph-org") { invitations(status: "pending") { total items { id } } } }`);
  expect(listed.data!.organization.invitations).toEqual({ total: 1, items: [{ id: invitation.id }] });

  const read = await gql(
    `query($t: String!) { invitation(token: $t) { id status inviteeIdentifier organization { slug name } } }`,
    { t: invitationToken },
    null,
  );
  expect(read.data!.invitation).toEqual({
    id: invitation.id,
    status: 'pending',
    inviteeIdentifier: 'gqlinvitee@example.test',
    organization: { slug: 'graph-org', name: 'Graph Org 2' },
  });

  const accepted = await gql(
    `mutation($t: String!) { acceptInvitation(token: $t, username: "gqlinvitee", password: "long enough pw") { organization { slug } member { username role permissions } } }`,
    { t: invitationToken },
    null,
  );
  expect(accepted.data!.acceptInvitation).toEqual({
    organization: { slug: 'graph-org' },
    member: { username: 'gqlinvitee', role: 'member', permissions: ['view_organization'] },
  });
  const again = await gql(`mutation($t: String!) { declineInvitation(token: $t) { status } }`, { t: invitationToken }, null);
  expect(again.errors![0].extensions.code).toBe('invalid');
  expect((await t.call('GET', `/api/invitations/${invitationToken}/`)).body.status).toBe('accepted');
});

test('declineInvitation, resendInvitation, revokeInvitation', async () => {
  const make = async (email: string) =>
    (
      await gql(
        `mutation { createInvitation(organization: "graph-org", input: {inviteeIdentifier: "${email}"}) { token invitation { id } } }`,
      )
    ).data!.createInvitation;
  const first = await make('decliner@example.test');
  const declined = await gql(`mutation($t: String!) { declineInvitation(token: $t) { id status } }`, { t: first.token }, null);
  expect(declined.data!.declineInvitation).toEqual({ id: first.invitation.id, status: 'declined' });
  expect((await t.call('GET', `/api/invitations/${first.token}/`)).body.status).toBe('declined');

  const second = await make('revokee@example.test');
  const resent = await gql(`mutation($id: ID!) { resendInvitation(organization: "graph-org", id: $id) { token invitation { status } } }`, {
    id: second.invitation.id,
  });
  expect(resent.data!.resendInvitation.token).not.toBe(second.token);
  expect(
    (await gql(`mutation($id: ID!) { revokeInvitation(organization: "graph-org", id: $id) { id status } }`, { id: second.invitation.id }))
      .data!.revokeInvitation,
  ).toEqual({ id: second.invitation.id, status: 'revoked' });
  expect((await t.call('GET', `/api/invitations/${resent.data!.resendInvitation.token}/`)).body.status).toBe('revoked');
  const twice = await gql(`mutation($id: ID!) { revokeInvitation(organization: "graph-org", id: $id) { id } }`, {
    id: second.invitation.id,
  });
  expect(twice.errors![0].extensions.code).toBe('invalid');
});

test('auditEntries on the organization and for staff; deleteOrganization and restoreOrganization', async () => {
  const trail = await gql(
    `{ organization(slug: "graph-org") { auditEntries(objectType: "organization") { total items { actor action objectType organization } } } }`,
  );
  const rest = await t.call('GET', '/api/organizations/graph-org/audit/?object_type=organization', { token });
  expect(trail.data!.organization.auditEntries.total).toBe(rest.body.count);
  expect(trail.data!.organization.auditEntries.items).toEqual(
    rest.body.results.map((e: Record<string, unknown>) => ({
      actor: e.actor,
      action: e.action,
      objectType: e.object_type,
      organization: e.organization,
    })),
  );
  expect((await gql(`{ auditEntries { total } }`)).errors![0].extensions.code).toBe('permission_denied');
  const staff = t.tokenFor(await t.createUser({ isStaff: true }));
  expect(
    (await gql(`{ auditEntries(organization: "graph-org", action: "create") { total } }`, {}, staff)).data!.auditEntries.total,
  ).toBeGreaterThan(0);

  const deleted = await gql(`mutation { deleteOrganization(slug: "graph-org") { id slug } }`);
  expect(deleted.data!.deleteOrganization).toEqual({ id: expect.any(String), slug: 'graph-org' });
  expect((await gql(`{ organization(slug: "graph-org") { id } }`)).errors![0].extensions.code).toBe('not_found');
  const restored = await gql(`mutation { restoreOrganization(slug: "graph-org") { slug isActive } }`);
  expect(restored.data!.restoreOrganization).toEqual({ slug: 'graph-org', isActive: true });
  const outsider = t.tokenFor(await t.createUser());
  expect((await gql(`mutation { deleteOrganization(slug: "graph-org") { id } }`, {}, outsider)).errors![0].extensions.code).toBe(
    'not_found',
  );
});

describe('distributed mode', () => {
  let w: GraphqlWorld;
  beforeAll(async () => {
    w = await startGraphqlWorld('distributed');
  });
  afterAll(() => w.close());

  test('mutations and Organization.members work through the subgraph servers (signed context)', async () => {
    const ownerToken = w.t.tokenFor(w.owner);
    const created = await w.gql(`mutation { createOrganization(input: {name: "Remote Org"}) { slug } }`, { token: ownerToken });
    expect(created.body.data.createOrganization.slug).toBe('remote-org');
    const members = await w.gql(`{ organization(slug: "remote-org") { members { items { username role } } } }`, { token: ownerToken });
    expect(members.body.data.organization.members.items).toEqual([{ username: w.owner.username, role: 'owner' }]);
    const invite = await w.gql(
      `mutation { createInvitation(organization: "remote-org", input: {inviteeIdentifier: "far@example.test"}) { token } }`,
      { token: ownerToken },
    );
    const read = await w.gql(`query($t: String!) { invitation(token: $t) { status } }`, {
      variables: { t: invite.body.data.createInvitation.token },
    });
    expect(read.body.data.invitation.status).toBe('pending');
  });
});
