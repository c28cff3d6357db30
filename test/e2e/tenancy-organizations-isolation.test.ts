// Tenant isolation of the organizations area: a user of organization A never sees B. Every
// route of B, addressed by slug or by UUID, answers 404 as if B did not exist; lists never
// show it; B's members, invitations and audit entries stay out of A's answers.
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let alice: User; // owner of A
let bruno: User; // owner of B
let a: { uuid: string; slug: string };
let b: { uuid: string; slug: string };
let bInvitation: { uuid: string; token: string };

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.createUser({ username: 'alice-a' });
  bruno = await t.createUser({ username: 'bruno-b' });
  a = (await t.call('POST', '/api/organizations/', { token: t.tokenFor(alice), body: { name: 'Org A' } })).body;
  b = (await t.call('POST', '/api/organizations/', { token: t.tokenFor(bruno), body: { name: 'Org B' } })).body;
  bInvitation = (
    await t.call('POST', `/api/organizations/${b.slug}/invitations/`, {
      token: t.tokenFor(bruno),
      body: { invitee_identifier: 'x@b.test' },
    })
  ).body;
});
afterAll(() => t.close());

const routesOf = (org: string): [string, string, unknown?][] => [
  ['GET', `/api/organizations/${org}/`],
  ['PUT', `/api/organizations/${org}/`, { name: 'Taken over' }],
  ['PATCH', `/api/organizations/${org}/`, { name: 'Taken over' }],
  ['DELETE', `/api/organizations/${org}/`],
  ['POST', `/api/organizations/${org}/restore/`],
  ['GET', `/api/organizations/${org}/members/`],
  ['GET', `/api/organizations/${org}/members/bruno-b/`],
  ['PATCH', `/api/organizations/${org}/members/bruno-b/`, { role: 'member' }],
  ['DELETE', `/api/organizations/${org}/members/bruno-b/`],
  ['GET', `/api/organizations/${org}/invitations/`],
  ['POST', `/api/organizations/${org}/invitations/`, { invitee_identifier: 'spy@a.test' }],
  ['POST', `/api/organizations/${org}/invitations/${bInvitation.uuid}/resend/`],
  ['DELETE', `/api/organizations/${org}/invitations/${bInvitation.uuid}/`],
  ['GET', `/api/organizations/${org}/audit/`],
  ['GET', `/api/organizations/${org}/audit/?include_deleted=true`],
];

test.each(['slug', 'uuid'] as const)("every route of B by %s answers 404 not_found to A's owner", async (by) => {
  const ref = by === 'slug' ? b.slug : b.uuid;
  for (const [method, url, body] of routesOf(ref)) {
    const res = await t.call(method, url, { token: t.tokenFor(alice), body });
    expect([method, url, res.status, res.body?.code]).toEqual([method, url, 404, 'not_found']);
  }
  // Nothing of B changed.
  const own = await t.call('GET', `/api/organizations/${b.slug}/`, { token: t.tokenFor(bruno) });
  expect(own.body).toMatchObject({ name: 'Org B', is_active: true });
  expect((await t.call('GET', `/api/organizations/${b.slug}/members/bruno-b/`, { token: t.tokenFor(bruno) })).body.role).toBe('owner');
});

test('lists never show B; searching for it finds nothing', async () => {
  const list = await t.call('GET', '/api/organizations/?include_deleted=true', { token: t.tokenFor(alice) });
  expect(list.body.results.map((o: { slug: string }) => o.slug)).toEqual([a.slug]);
  expect((await t.call('GET', '/api/organizations/?search=org%20b', { token: t.tokenFor(alice) })).body.count).toBe(0);
});

test("B's member, invitation and audit entries are not reachable through A", async () => {
  expect((await t.call('GET', `/api/organizations/${a.slug}/members/${bruno.uuid}/`, { token: t.tokenFor(alice) })).status).toBe(404);
  for (const [method, suffix] of [
    ['POST', 'resend/'],
    ['DELETE', ''],
  ]) {
    expect(
      (await t.call(method, `/api/organizations/${a.slug}/invitations/${bInvitation.uuid}/${suffix}`, { token: t.tokenFor(alice) })).status,
    ).toBe(404);
  }
  const invitations = await t.call('GET', `/api/organizations/${a.slug}/invitations/`, { token: t.tokenFor(alice) });
  expect(invitations.body.count).toBe(0);
  const trail = await t.call('GET', `/api/organizations/${a.slug}/audit/`, { token: t.tokenFor(alice) });
  expect(trail.body.results.every((e: { organization: string }) => e.organization === a.slug)).toBe(true);
  expect(JSON.stringify(trail.body)).not.toContain(b.uuid);
});

test("B's invitation token works only for what it is: reading and answering that invitation", async () => {
  const res = await t.call('GET', `/api/invitations/${bInvitation.token}/`, { token: t.tokenFor(alice) });
  expect(res.body.organization.slug).toBe(b.slug);
  // Alice's address is not the invited one.
  expect((await t.call('POST', `/api/invitations/${bInvitation.token}/accept/`, { token: t.tokenFor(alice) })).status).toBe(403);
});

test('GraphQL answers not_found for B as well', async () => {
  for (const ref of [b.slug, b.uuid]) {
    const res = await t.call('POST', '/graphql', {
      token: t.tokenFor(alice),
      body: { query: `mutation($s: String!) { updateOrganization(slug: $s, input: {name: "x"}) { id } }`, variables: { s: ref } },
    });
    expect(res.body.errors[0].extensions.code).toBe('not_found');
    const members = await t.call('POST', '/graphql', {
      token: t.tokenFor(alice),
      body: { query: `query($s: String!) { member(organization: $s, user: "bruno-b") { id } }`, variables: { s: ref } },
    });
    expect(members.body.errors[0].extensions.code).toBe('not_found');
  }
});
