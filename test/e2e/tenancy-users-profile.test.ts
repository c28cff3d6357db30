// Profiles (`/api/users/{user}/profile/`) and the user hook points (platform.hooks).
import { AppError, errors } from '../../subgraphs/core/errors.js';
import type { HookUser as UserView, ProposedUser } from '../../subgraphs/core/hooks.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg } from '../support/tenants.js';

let t: TestApp;
let staff: User;
let alice: User;
let bob: User;
let carol: User;

beforeAll(async () => {
  t = await startTestApp();
  staff = await t.createUser({ isStaff: true });
  alice = await t.createUser({ username: 'alice' });
  bob = await t.createUser({ username: 'bob' });
  carol = await t.createUser({ username: 'carol' });
  const org = await insertOrg(t.platform, 'org-a', alice.id);
  await t.platform.pool.query(`INSERT INTO memberships (organization_id, user_id) VALUES ($1, $2)`, [org.id, bob.id]);
});
afterAll(() => t.close());

describe('profile', () => {
  test('defaults, then PATCH by the user: validated, canonicalised, audited', async () => {
    const token = t.tokenFor(alice);
    const empty = await t.call('GET', `/api/users/${alice.slug}/profile/`, { token });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ user: alice.uuid, bio: '', avatar_url: '', phone: '', timezone: 'UTC', locale: 'en', attributes: {} });

    const body = {
      bio: 'Hi',
      avatar_url: 'https://cdn.example.test/a.png',
      phone: '+41 44 123 45 67',
      timezone: 'Europe/Zurich',
      locale: 'de-ch',
      attributes: { team: 'blue', n: 1 },
    };
    const res = await t.call('PATCH', `/api/users/${alice.slug}/profile/`, { token, body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user: alice.uuid, ...body, locale: 'de-CH' });
    expect((await t.call('GET', `/api/users/${alice.uuid}/profile/`, { token })).body.timezone).toBe('Europe/Zurich');
    const partial = await t.call('PATCH', `/api/users/${alice.slug}/profile/`, { token, body: { bio: 'Changed' } });
    expect(partial.body).toMatchObject({ bio: 'Changed', timezone: 'Europe/Zurich' });
    const audit = await t.platform.pool.query(
      `SELECT changes FROM audit_log WHERE object_type = 'user_profile' AND object_id = $1 ORDER BY id`,
      [alice.uuid],
    );
    expect(audit.rows[0].changes.attributes).toEqual(['team', 'n']);
  });

  test('bad values: 400 per field', async () => {
    const res = await t.call('PATCH', `/api/users/${alice.slug}/profile/`, {
      token: t.tokenFor(alice),
      body: {
        timezone: 'Mars/Olympus',
        locale: 'not a locale!',
        avatar_url: 'javascript:alert(1)',
        phone: 'call me',
        attributes: [1, 2],
        bio: 5,
      },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['attributes', 'avatar_url', 'bio', 'locale', 'phone', 'timezone']);
  });

  test("staff may read and write anyone's; a fellow member gets 403; an outsider 404; anonymous 401", async () => {
    const s = await t.call('PATCH', `/api/users/${bob.slug}/profile/`, { token: t.tokenFor(staff), body: { bio: 'by staff' } });
    expect(s.status).toBe(200);
    expect((await t.call('GET', `/api/users/${bob.slug}/profile/`, { token: t.tokenFor(alice) })).status).toBe(403);
    expect((await t.call('PATCH', `/api/users/${bob.slug}/profile/`, { token: t.tokenFor(alice), body: { bio: 'x' } })).status).toBe(403);
    expect((await t.call('GET', `/api/users/${bob.slug}/profile/`, { token: t.tokenFor(carol) })).status).toBe(404);
    expect((await t.call('GET', `/api/users/${bob.slug}/profile/`)).status).toBe(401);
  });
});

describe('user hooks', () => {
  const newUser = (username: string) => ({ username, email: `${username}@example.test`, password: 'long enough password' });

  test('a rejecting beforeCreate aborts with its status and nothing is stored', async () => {
    const seen: ProposedUser[] = [];
    const off = t.platform.hooks.on('userBeforeCreate', (user) => {
      seen.push(user);
      if (user.username.startsWith('blocked'))
        throw new AppError({ code: 'pre_event_rejected', status: 400, message: 'Rejected by a hook.' });
    });
    try {
      const res = await t.call('POST', '/api/users/', { token: t.tokenFor(staff), body: newUser('blocked-one') });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'pre_event_rejected', detail: 'Rejected by a hook.' });
      expect(seen[0]).toEqual({
        username: 'blocked-one',
        email: 'blocked-one@example.test',
        first_name: '',
        last_name: '',
        is_staff: false,
        is_superuser: false,
      });
      const stored = await t.platform.pool.query('SELECT count(*)::int AS n FROM users WHERE username = $1', ['blocked-one']);
      expect(stored.rows[0].n).toBe(0);
      const audited = await t.platform.pool.query(`SELECT count(*)::int AS n FROM audit_log WHERE changes->>'username' = 'blocked-one'`);
      expect(audited.rows[0].n).toBe(0);
      // A hook that forbids answers with that status too.
      const off2 = t.platform.hooks.on('userBeforeCreate', () => Promise.reject(errors.permissionDenied('No.')));
      expect((await t.call('POST', '/api/users/', { token: t.tokenFor(staff), body: newUser('other') })).status).toBe(403);
      off2();
    } finally {
      off();
    }
  });

  test('after-hooks receive the saved user (no password) and their failures never fail the request', async () => {
    const calls: { kind: string; user: UserView; previous?: UserView }[] = [];
    const offs = [
      t.platform.hooks.on('userAfterCreate', (user) => void calls.push({ kind: 'create', user })),
      t.platform.hooks.on('userAfterUpdate', (user, previous) => void calls.push({ kind: 'update', user, previous })),
      t.platform.hooks.on('userAfterDelete', (user) => void calls.push({ kind: 'delete', user })),
      t.platform.hooks.on('userAfterCreate', () => {
        throw new Error('subscriber down');
      }),
      t.platform.hooks.on('userAfterDelete', () => Promise.reject(new Error('subscriber down'))),
    ];
    try {
      const staffToken = t.tokenFor(staff);
      const created = await t.call('POST', '/api/users/', { token: staffToken, body: newUser('hooked') });
      expect(created.status).toBe(201);
      await t.call('PATCH', `/api/users/${created.body.slug}/`, {
        token: staffToken,
        body: { first_name: 'Hook', password: 'another password' },
      });
      expect((await t.call('DELETE', `/api/users/${created.body.slug}/`, { token: staffToken })).status).toBe(204);

      expect(calls.map((c) => c.kind)).toEqual(['create', 'update', 'delete']);
      expect(calls[0].user).toEqual(created.body);
      expect(calls[1].user.first_name).toBe('Hook');
      expect(calls[1].previous!.first_name).toBe('');
      expect(calls[2].user).toMatchObject({ uuid: created.body.uuid, is_active: false });
      expect(JSON.stringify(calls)).not.toMatch(/password|argon2/);
      expect(t.logs.some((l) => l.includes('hook failed') && l.includes('subscriber down'))).toBe(true);
    } finally {
      for (const off of offs) off();
    }
  });
});
