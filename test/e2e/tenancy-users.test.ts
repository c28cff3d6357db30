// Users through REST (DECISIONS §4): create, list, read, update, soft delete, restore, and who
// may do each; the caller (`/users/me/`) keeps working.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

let t: TestApp;
let superuser: User;
let staff: User;
let alice: User; // member of org A
let bob: User; // member of org A
let carol: User; // member of org B only
let su: string;
let staffToken: string;

beforeAll(async () => {
  t = await startTestApp();
  superuser = await t.createUser({ username: 'root', isSuperuser: true, isStaff: true });
  staff = await t.createUser({ username: 'staffer', isStaff: true });
  alice = await t.createUser({ username: 'alice' });
  bob = await t.createUser({ username: 'bob' });
  carol = await t.createUser({ username: 'carol' });
  su = t.tokenFor(superuser);
  staffToken = t.tokenFor(staff);
  const orgA = await insertOrg(t.platform, 'org-a', alice.id);
  await t.platform.pool.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'member')`, [orgA.id, bob.id]);
  await insertOrg(t.platform, 'org-b', carol.id);
});
afterAll(() => t.close());

const newUser = (username: string, extra: Record<string, unknown> = {}) => ({
  username,
  email: `${username}@example.test`,
  password: 'long enough password',
  first_name: 'First',
  last_name: 'Last',
  ...extra,
});

const auditCount = async (objectId: string) =>
  (await t.platform.pool.query('SELECT count(*)::int AS n FROM audit_log WHERE object_id = $1', [objectId])).rows[0].n;

describe('POST /api/users/', () => {
  test('staff create a user: 201, slug from the username, no password in the answer, audited', async () => {
    const res = await t.call('POST', '/api/users/', { token: staffToken, body: newUser('New Person') });
    expect(res.status).toBe(400); // a space is not allowed in a username
    expect(res.body.errors.username).toBeDefined();

    const ok = await t.call('POST', '/api/users/', { token: staffToken, body: newUser('new.person') });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      username: 'new.person',
      slug: 'new-person',
      email: 'new.person@example.test',
      is_staff: false,
      is_active: true,
    });
    expect(JSON.stringify(ok.body)).not.toMatch(/password/);
    expect(await auditCount(ok.body.uuid)).toBe(1);
    const login = await t.call('POST', '/api/auth/jwt/token/', { body: { username: 'new.person', password: 'long enough password' } });
    expect(login.status).toBe(200);
  });

  test('validation: 400 with every field error at once', async () => {
    const res = await t.call('POST', '/api/users/', {
      token: staffToken,
      body: { username: 'x'.repeat(151), email: 'not-an-email', password: 'short', is_staff: 'yes' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid', status_code: 400 });
    expect(Object.keys(res.body.errors).sort()).toEqual(['email', 'is_staff', 'password', 'username']);
    const empty = await t.call('POST', '/api/users/', { token: staffToken, body: {} });
    expect(Object.keys(empty.body.errors).sort()).toEqual(['email', 'password', 'username']);
  });

  test('duplicate username: 409', async () => {
    const res = await t.call('POST', '/api/users/', { token: staffToken, body: newUser('alice') });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
  });

  test('an e-mail address already used by an active user: 409', async () => {
    // E-mail addresses compare case-insensitively.
    const res = await t.call('POST', '/api/users/', {
      token: staffToken,
      body: { ...newUser('second-alice'), email: alice.email.toUpperCase() },
    });
    const alicesEmail = alice.email;
    expect(res.status).toBe(409);
    expect(res.body.errors.email).toBeDefined();
    const patch = await t.call('PATCH', `/api/users/${bob.slug}/`, {
      token: t.tokenFor(bob),
      body: { email: alicesEmail, current_password: 'correct horse battery' },
    });
    expect(patch.status).toBe(409);
  });

  test('concurrent creates of usernames that slugify alike all succeed with distinct slugs', async () => {
    const names = ['par.ann', 'par-ann', 'par_ann', 'PAR.ANN', 'Par-Ann', 'par..ann'];
    // Distinct addresses: 'par.ann@…' and 'PAR.ANN@…' are one address (see the next test).
    const results = await Promise.all(
      names.map((n, i) => t.call('POST', '/api/users/', { token: staffToken, body: newUser(n, { email: `par-ann-${i}@example.test` }) })),
    );
    expect(results.map((r) => r.status)).toEqual(names.map(() => 201));
    const slugs = results.map((r) => r.body.slug).sort();
    expect(slugs).toEqual(['par-ann', 'par-ann-2', 'par-ann-3', 'par-ann-4', 'par-ann-5', 'par-ann-6']);
  });

  test('concurrent creates with one e-mail address in different cases: exactly one succeeds, the rest get 409', async () => {
    const emails = ['same.mail@example.test', 'SAME.MAIL@example.test', 'Same.Mail@Example.Test', 'same.MAIL@example.TEST'];
    const results = await Promise.all(
      emails.map((email, i) => t.call('POST', '/api/users/', { token: staffToken, body: newUser(`same-mail-${i}`, { email }) })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.errors.email).toBeDefined();
  });

  test('only superusers grant staff or superuser status; non-staff may not create at all', async () => {
    expect((await t.call('POST', '/api/users/', { token: staffToken, body: newUser('wannabe', { is_staff: true }) })).status).toBe(403);
    expect((await t.call('POST', '/api/users/', { token: t.tokenFor(alice), body: newUser('by-alice') })).status).toBe(403);
    expect((await t.call('POST', '/api/users/', { body: newUser('anon') })).status).toBe(401);
    const ok = await t.call('POST', '/api/users/', { token: su, body: newUser('new-staff', { is_staff: true }) });
    expect(ok.status).toBe(201);
    expect(ok.body.is_staff).toBe(true);
  });
});

describe('GET /api/users/', () => {
  test('staff see everyone; filters, search and ordering', async () => {
    const all = await t.call('GET', '/api/users/?page_size=100', { token: staffToken });
    expect(all.status).toBe(200);
    expect(all.body.results.map((u: any) => u.username)).toEqual(expect.arrayContaining(['alice', 'bob', 'carol', 'root']));
    const orgA = await t.call('GET', '/api/users/?organization_slug=org-a', { token: staffToken });
    expect(orgA.body.results.map((u: any) => u.username)).toEqual(['alice', 'bob']);
    const search = await t.call('GET', '/api/users/?search=CARO', { token: staffToken });
    expect(search.body.results.map((u: any) => u.username)).toEqual(['carol']);
    const desc = await t.call('GET', '/api/users/?organization_slug=org-a&ordering=-username', { token: staffToken });
    expect(desc.body.results.map((u: any) => u.username)).toEqual(['bob', 'alice']);
    const joined = await t.call('GET', '/api/users/?ordering=-date_joined&page_size=1', { token: staffToken });
    expect(joined.body.count).toBeGreaterThan(1);
    expect(joined.body.next).toContain('page=2');
  });

  test('others see themselves and members of their organizations only', async () => {
    const res = await t.call('GET', '/api/users/', { token: t.tokenFor(alice) });
    expect(res.body.results.map((u: any) => u.username)).toEqual(['alice', 'bob']);
    const loner = await t.createUser();
    const own = await t.call('GET', '/api/users/', { token: t.tokenFor(loner) });
    expect(own.body.results.map((u: any) => u.uuid)).toEqual([loner.uuid]);
    // Filtering by another organization never reveals its members.
    const other = await t.call('GET', '/api/users/?organization_slug=org-b', { token: t.tokenFor(alice) });
    expect(other.body).toMatchObject({ count: 0, results: [] });
  });

  test('bad parameters: 400 naming them; anonymous: 401', async () => {
    const res = await t.call('GET', '/api/users/?ordering=password_hash&is_active=maybe', { token: staffToken });
    expect(res.status).toBe(400);
    expect(res.body.errors.ordering ?? res.body.errors.is_active).toBeDefined();
    expect((await t.call('GET', '/api/users/')).status).toBe(401);
  });
});

describe('GET/PUT/PATCH /api/users/{user}/', () => {
  test('by slug or UUID; a fellow member may read; an outsider gets 404', async () => {
    const bySlug = await t.call('GET', `/api/users/${bob.slug}/`, { token: t.tokenFor(alice) });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.uuid).toBe(bob.uuid);
    const byUuid = await t.call('GET', `/api/users/${bob.uuid.toUpperCase()}/`, { token: staffToken });
    expect(byUuid.body.slug).toBe(bob.slug);
    expect((await t.call('GET', `/api/users/${bob.slug}/`, { token: t.tokenFor(carol) })).status).toBe(404);
    expect((await t.call('GET', '/api/users/nobody-at-all/', { token: staffToken })).status).toBe(404);
    expect((await t.call('GET', `/api/users/${bob.slug}/`)).status).toBe(401);
  });

  test('a user changes themselves; a visible other is 403; an invisible other is 404', async () => {
    const mine = await t.call('PATCH', `/api/users/${alice.slug}/`, { token: t.tokenFor(alice), body: { first_name: 'Alice' } });
    expect(mine.status).toBe(200);
    expect(mine.body.first_name).toBe('Alice');
    expect((await t.call('PATCH', `/api/users/${bob.slug}/`, { token: t.tokenFor(alice), body: { first_name: 'X' } })).status).toBe(403);
    expect((await t.call('PATCH', `/api/users/${carol.slug}/`, { token: t.tokenFor(alice), body: { first_name: 'X' } })).status).toBe(404);
    expect((await t.call('DELETE', `/api/users/${carol.slug}/`, { token: t.tokenFor(alice) })).status).toBe(404);
  });

  test('is_staff / is_superuser: only a superuser changes them', async () => {
    const self = await t.call('PATCH', `/api/users/${alice.slug}/`, { token: t.tokenFor(alice), body: { is_staff: true } });
    expect(self.status).toBe(403);
    expect((await t.call('PATCH', `/api/users/${bob.slug}/`, { token: staffToken, body: { is_superuser: true } })).status).toBe(403);
    // Sending the current value is not a change.
    expect(
      (await t.call('PATCH', `/api/users/${bob.slug}/`, { token: staffToken, body: { is_staff: false, last_name: 'B' } })).status,
    ).toBe(200);
    // Staff may not change a superuser's account.
    expect((await t.call('PATCH', `/api/users/${superuser.slug}/`, { token: staffToken, body: { first_name: 'R' } })).status).toBe(403);
    const promoted = await t.call('PATCH', `/api/users/${bob.slug}/`, { token: su, body: { is_staff: true } });
    expect(promoted.body.is_staff).toBe(true);
    // The principal reads flags from the database: bob is staff at once and lists everyone.
    const list = await t.call('GET', '/api/users/?organization_slug=org-b', { token: t.tokenFor(bob) });
    expect(list.body.count).toBe(1);
    await t.call('PATCH', `/api/users/${bob.slug}/`, { token: su, body: { is_staff: false } });
  });

  test('PUT needs username and email; password change re-hashes; username clash is 409', async () => {
    const put = await t.call('PUT', `/api/users/${carol.slug}/`, { token: t.tokenFor(carol), body: { first_name: 'C' } });
    expect(put.status).toBe(400);
    expect(Object.keys(put.body.errors).sort()).toEqual(['email', 'username']);
    const ok = await t.call('PUT', `/api/users/${carol.slug}/`, {
      token: t.tokenFor(carol),
      body: {
        username: 'carol',
        email: 'carol@new.test',
        first_name: 'Carol',
        password: 'a new password',
        current_password: 'correct horse battery',
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ email: 'carol@new.test', first_name: 'Carol', slug: carol.slug });
    const hash = (await t.platform.pool.query('SELECT password_hash FROM users WHERE id = $1', [carol.id])).rows[0].password_hash;
    expect(hash).toMatch(/^\$argon2id\$/);
    const signIn = await t.call('POST', '/api/auth/jwt/token/', { body: { username: 'carol', password: 'a new password' } });
    expect(signIn.status).toBe(200);
    // The password change retired carol's older tokens (issue 10): the rest uses a fresh one.
    const carolToken = signIn.body.access as string;
    const audit = await t.platform.pool.query(`SELECT changes FROM audit_log WHERE object_id = $1 AND action = 'update'`, [carol.uuid]);
    expect(audit.rows.at(-1).changes.password).toBe('[changed]');
    const clash = await t.call('PATCH', `/api/users/${carol.slug}/`, { token: carolToken, body: { username: 'alice' } });
    expect(clash.status).toBe(409);
    const bad = await t.call('PATCH', `/api/users/${carol.slug}/`, { token: carolToken, body: { password: 'short' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.password).toBeDefined();
  });
});

describe('DELETE /api/users/{user}/', () => {
  test('soft delete: 204, record and audit kept, sign-in refused, existing tokens stop, restore works', async () => {
    const res = await t.call('POST', '/api/users/', { token: staffToken, body: newUser('leaving') });
    const uuid = res.body.uuid;
    const slug = res.body.slug;
    const login = await t.call('POST', '/api/auth/jwt/token/', { body: { username: 'leaving', password: 'long enough password' } });
    const access = login.body.access;
    expect((await t.call('GET', '/api/users/me/', { token: access })).status).toBe(200);

    const del = await t.call('DELETE', `/api/users/${slug}/`, { token: staffToken });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const row = (await t.platform.pool.query('SELECT is_active, is_deleted, deleted_at FROM users WHERE uuid = $1', [uuid])).rows[0];
    expect(row).toMatchObject({ is_active: false, is_deleted: true });
    expect(row.deleted_at).toBeInstanceOf(Date);
    expect(await auditCount(uuid)).toBe(2);

    expect((await t.call('GET', '/api/users/me/', { token: access })).status).toBe(401);
    expect((await t.call('POST', '/api/auth/jwt/token/', { body: { username: 'leaving', password: 'long enough password' } })).status).toBe(
      401,
    );
    expect((await t.call('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: login.body.refresh } })).status).toBe(401);

    // Gone from reads and lists, except for staff asking for deleted ones.
    expect((await t.call('GET', `/api/users/${slug}/`, { token: staffToken })).status).toBe(404);
    expect((await t.call('GET', `/api/users/${slug}/?include_deleted=true`, { token: staffToken })).body.is_active).toBe(false);
    const list = await t.call('GET', '/api/users/?search=leaving', { token: staffToken });
    expect(list.body.count).toBe(0);

    expect((await t.call('POST', `/api/users/${slug}/restore/`, { token: t.tokenFor(alice) })).status).toBe(404);
    const restored = await t.call('POST', `/api/users/${slug}/restore/`, { token: staffToken });
    expect(restored.status).toBe(200);
    expect(restored.body.is_active).toBe(true);
    expect((await t.call('POST', '/api/auth/jwt/token/', { body: { username: 'leaving', password: 'long enough password' } })).status).toBe(
      200,
    );
  });

  test('a user may delete their own account; staff may not delete a superuser', async () => {
    const me = await t.createUser();
    expect((await t.call('DELETE', `/api/users/${superuser.slug}/`, { token: staffToken })).status).toBe(403);
    expect((await t.call('DELETE', `/api/users/${me.slug}/`, { token: t.tokenFor(me) })).status).toBe(204);
  });
});

test('GET /api/users/me/ keeps working', async () => {
  const res = await t.call('GET', '/api/users/me/', { token: t.tokenFor(alice) });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ uuid: alice.uuid, username: 'alice' });
  expect((await t.call('GET', '/api/cloud/users/me/', { token: t.tokenFor(alice) })).status).toBe(200);
  expect((await t.call('GET', '/api/users/me/')).status).toBe(401);
});

test('`me` names the caller on the other /users/{user}/ paths, and is never a slug', async () => {
  const token = t.tokenFor(bob);
  const patched = await t.call('PATCH', '/api/users/me/', { token, body: { first_name: 'Bobby' } });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ uuid: bob.uuid, first_name: 'Bobby' });
  expect((await t.call('GET', '/api/users/me/profile/', { token })).body.user).toBe(bob.uuid);
  const named = await t.call('POST', '/api/users/', { token: staffToken, body: newUser('me') });
  expect(named.status).toBe(201);
  expect(named.body.slug).toBe('me-user');
  expect((await t.call('DELETE', '/api/users/me/')).status).toBe(401);
});
