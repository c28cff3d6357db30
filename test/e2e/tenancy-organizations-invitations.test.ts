// Invitations (DECISIONS §4): create with permissions, groups and site grants; list, resend,
// revoke; the invitee reads, accepts (signed in, or signing up) or declines by token; a used,
// revoked or expired invitation is refused; tokens are stored hashed and never logged; mail
// through a real SMTP server when SMTP_URL is set.
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg, insertSite } from '../support/tenants.js';

let t: TestApp;
let owner: User;
let member: User;
let org: { id: number; slug: string };
let otherOrg: { id: number };
let groupId: number;
let otherGroupId: number;
let siteId: number;
const sql = (text: string, params: unknown[] = []) => t.platform.pool.query(text, params).then((r) => r.rows);
const tok = (u: User) => t.tokenFor(u);
const base = () => `/api/organizations/${org.slug}/invitations/`;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.createUser({ username: 'owner' });
  member = await t.createUser({ username: 'plain' });
  org = { ...(await insertOrg(t.platform, 'inviting', owner.id)), slug: 'inviting' };
  otherOrg = await insertOrg(t.platform, 'elsewhere', owner.id);
  await sql(`INSERT INTO memberships (organization_id, user_id) VALUES ($1, $2)`, [org.id, member.id]);
  groupId = (
    await sql(`INSERT INTO groups (name, scope, organization_id) VALUES ('editors', 'organization', $1) RETURNING id`, [org.id])
  )[0].id;
  otherGroupId = (
    await sql(`INSERT INTO groups (name, scope, organization_id) VALUES ('theirs', 'organization', $1) RETURNING id`, [otherOrg.id])
  )[0].id;
  siteId = (await insertSite(t.platform, org.id, 'inv-shop', 'inv-shop.example.test')).id;
  await insertSite(t.platform, otherOrg.id, 'foreign-shop', 'foreign.example.test');
});
afterAll(() => t.close());

let n = 0;
const email = () => `invitee${++n}@example.test`;

async function invite(body: Record<string, unknown> = {}, token = tok(owner)) {
  const res = await t.call('POST', base(), { token, body: { invitee_identifier: email(), ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

describe('create', () => {
  test('201 {uuid, invitee_identifier, permissions, invitation_config, status, expires_at, token}; only the hash is stored', async () => {
    const res = await t.call('POST', base(), {
      token: tok(owner),
      body: {
        invitee_identifier: 'New.Person@Example.test',
        permissions: ['view_organization', 'manage_site'],
        invitation_config: { group: [groupId], site: [{ slug: 'inv-shop', permissions: ['data:read'] }] },
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      uuid: expect.any(String),
      invitee_identifier: 'New.Person@Example.test',
      permissions: ['manage_site', 'view_organization'],
      invitation_config: { group: [groupId], site: [{ slug: 'inv-shop', permissions: ['data:read'] }] },
      status: 'pending',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const days = (Date.parse(res.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThan(7.01);
    const [row] = await sql('SELECT * FROM invitations WHERE uuid = $1', [res.body.uuid]);
    expect(row.token_hash).toBe(crypto.createHash('sha256').update(res.body.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(res.body.token);
    const [audit] = await sql(
      `SELECT action, organization_id, changes FROM audit_log WHERE object_type = 'invitation' AND object_id = $1`,
      [res.body.uuid],
    );
    expect(audit).toMatchObject({ action: 'create', organization_id: org.id });
    expect(JSON.stringify(audit)).not.toContain(res.body.token);
  });

  test('without SMTP_URL one line is logged for the address, never the token or link', async () => {
    const body = await invite({ invitee_identifier: 'logged@example.test' });
    const lines = t.logs.filter((l) => l.includes('logged@example.test'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]).msg).toContain('invitation created for logged@example.test');
    expect(t.logs.join('\n')).not.toContain(body.token);
  });

  test('a UUID names a site too; the stored config uses its slug', async () => {
    const [site] = await sql('SELECT uuid FROM sites WHERE id = $1', [siteId]);
    const body = await invite({ invitation_config: { site: [{ slug: site.uuid.toUpperCase(), permissions: [] }] } });
    expect(body.invitation_config).toEqual({ group: [], site: [{ slug: 'inv-shop', permissions: [] }] });
  });

  test.each([
    ['a bad address', { invitee_identifier: 'not-an-email' }, 'invitee_identifier'],
    ['no address', { invitee_identifier: undefined }, 'invitee_identifier'],
    ['unknown permissions', { permissions: ['view_site', 'fly'] }, 'permissions'],
    ['a group of another organization', { invitation_config: { group: [999999] } }, 'invitation_config.group'],
    [
      'a site of another organization',
      { invitation_config: { site: [{ slug: 'foreign-shop', permissions: [] }] } },
      'invitation_config.site.0.slug',
    ],
    [
      'an organization permission on a site',
      { invitation_config: { site: [{ slug: 'inv-shop', permissions: ['manage_organization'] }] } },
      'invitation_config.site.0.permissions',
    ],
    ['an unknown config key', { invitation_config: { app: [] } }, 'invitation_config'],
  ])('%s is 400 naming the field', async (_name, extra, field) => {
    const res = await t.call('POST', base(), { token: tok(owner), body: { invitee_identifier: email(), ...extra } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toContain(field);
  });

  test('a group of another organization is refused even by its own owner', async () => {
    const res = await t.call('POST', base(), {
      token: tok(owner),
      body: { invitee_identifier: email(), invitation_config: { group: [otherGroupId] } },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors['invitation_config.group'][0]).toContain(String(otherGroupId));
  });

  test('a member is 409; a second pending invitation for the same address is 409', async () => {
    await sql(`UPDATE users SET email = 'plain@example.test' WHERE id = $1`, [member.id]);
    expect((await t.call('POST', base(), { token: tok(owner), body: { invitee_identifier: 'PLAIN@example.test' } })).status).toBe(409);
    const address = email();
    await invite({ invitee_identifier: address });
    const again = await t.call('POST', base(), { token: tok(owner), body: { invitee_identifier: address.toUpperCase() } });
    expect(again.status).toBe(409);
  });

  test('a plain member may not invite (403); invite_members may; outsiders get 404, anonymous 401', async () => {
    expect((await t.call('POST', base(), { token: tok(member), body: { invitee_identifier: email() } })).status).toBe(403);
    await sql(`UPDATE memberships SET permissions = '{invite_members}' WHERE user_id = $1 AND organization_id = $2`, [member.id, org.id]);
    await invite({}, tok(member));
    await sql(`UPDATE memberships SET permissions = '{}' WHERE user_id = $1 AND organization_id = $2`, [member.id, org.id]);
    const outsider = await t.createUser();
    expect((await t.call('POST', base(), { token: tok(outsider), body: { invitee_identifier: email() } })).status).toBe(404);
    expect((await t.call('POST', base(), { body: { invitee_identifier: email() } })).status).toBe(401);
  });
});

describe('list, resend, revoke', () => {
  test('the list shows invitations without tokens; status filters', async () => {
    const created = await invite();
    const res = await t.call('GET', `${base()}?status=pending`, { token: tok(owner) });
    expect(res.status).toBe(200);
    const item = res.body.results.find((i: { uuid: string }) => i.uuid === created.uuid);
    expect(item).toMatchObject({ status: 'pending', invited_by: 'owner', invitee_identifier: created.invitee_identifier });
    expect(item.token).toBeUndefined();
    expect(res.text).not.toContain(created.token);
    expect((await t.call('GET', `${base()}?status=everything`, { token: tok(owner) })).status).toBe(400);
    expect((await t.call('GET', base(), { token: tok(member) })).status).toBe(403);
  });

  test('resend renews token and expiry, also of an expired invitation; the old token stops working', async () => {
    const created = await invite();
    await sql(`UPDATE invitations SET expires_at = now() - interval '1 hour' WHERE uuid = $1`, [created.uuid]);
    expect((await t.call('GET', `/api/invitations/${created.token}/`)).body.status).toBe('expired');
    expect(
      (await t.call('GET', `${base()}?status=expired`, { token: tok(owner) })).body.results.map((i: { uuid: string }) => i.uuid),
    ).toContain(created.uuid);
    const res = await t.call('POST', `${base()}${created.uuid}/resend/`, { token: tok(owner) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uuid: created.uuid, status: 'pending', token: expect.any(String) });
    expect(res.body.token).not.toBe(created.token);
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    expect((await t.call('GET', `/api/invitations/${created.token}/`)).status).toBe(404);
    expect((await t.call('GET', `/api/invitations/${res.body.token}/`)).body.status).toBe('pending');
  });

  test('revoke answers 204; the token is refused; revoking or resending again is 400', async () => {
    const created = await invite();
    const res = await t.call('DELETE', `${base()}${created.uuid}/`, { token: tok(owner) });
    expect(res.status).toBe(204);
    expect((await t.call('GET', `/api/invitations/${created.token}/`)).body.status).toBe('revoked');
    expect(
      (await t.call('POST', `/api/invitations/${created.token}/accept/`, { body: { username: 'late', password: 'long enough pw' } }))
        .status,
    ).toBe(400);
    expect((await t.call('DELETE', `${base()}${created.uuid}/`, { token: tok(owner) })).status).toBe(400);
    expect((await t.call('POST', `${base()}${created.uuid}/resend/`, { token: tok(owner) })).status).toBe(400);
    expect((await t.call('DELETE', `${base()}${crypto.randomUUID()}/`, { token: tok(owner) })).status).toBe(404);
    expect((await t.call('DELETE', `${base()}not-a-uuid/`, { token: tok(owner) })).status).toBe(404);
    expect((await t.call('DELETE', `${base()}${created.uuid}/`, { token: tok(member) })).status).toBe(403);
  });
});

describe('the invitee', () => {
  test('reads the invitation without signing in; an unknown token is 404', async () => {
    const created = await invite({ permissions: ['view_site'] });
    const res = await t.call('GET', `/api/invitations/${created.token}/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      uuid: created.uuid,
      organization: { uuid: expect.any(String), slug: 'inviting', name: 'INVITING' },
      invitee_identifier: created.invitee_identifier,
      permissions: ['view_site'],
      status: 'pending',
      expires_at: created.expires_at,
    });
    expect((await t.call('GET', `/api/invitations/${'x'.repeat(43)}/`)).status).toBe(404);
    expect((await t.call('GET', '/api/invitations/short/')).status).toBe(404);
    expect((await t.call('GET', `/api/cloud/invitations/${created.token}/`)).status).toBe(200);
  });

  test('accepting as a new user creates it (argon2id) and applies membership, groups and site grants in one go', async () => {
    const created = await invite({
      permissions: ['view_organization', 'storage:read'],
      invitation_config: { group: [groupId], site: [{ slug: 'inv-shop', permissions: ['data:read', 'view_site'] }] },
    });
    const res = await t.call('POST', `/api/invitations/${created.token}/accept/`, {
      body: { username: 'newbie', password: 'a good long password' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'accepted',
      organization: { slug: 'inviting' },
      member: { username: 'newbie', email: created.invitee_identifier, role: 'member', permissions: ['storage:read', 'view_organization'] },
    });
    const [user] = await sql(`SELECT id, password_hash, email FROM users WHERE username = 'newbie'`);
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    expect(await sql('SELECT group_id FROM group_members WHERE user_id = $1', [user.id])).toEqual([{ group_id: groupId }]);
    const grants = await sql(`SELECT permission, object_type, object_id FROM object_permissions WHERE user_id = $1 ORDER BY permission`, [
      user.id,
    ]);
    expect(grants).toEqual([
      { permission: 'data:read', object_type: 'site', object_id: siteId },
      { permission: 'view_site', object_type: 'site', object_id: siteId },
    ]);
    const [inv] = await sql('SELECT status, accepted_by_id FROM invitations WHERE uuid = $1', [created.uuid]);
    expect(inv).toEqual({ status: 'accepted', accepted_by_id: user.id });
    const audit = await sql(
      `SELECT a.action, a.object_type, u.username FROM audit_log a LEFT JOIN users u ON u.id = a.actor_id WHERE a.created_at > now() - interval '1 minute' AND a.organization_id = $1 ORDER BY a.id DESC LIMIT 2`,
      [org.id],
    );
    expect(audit).toEqual([
      { action: 'accept', object_type: 'invitation', username: 'newbie' },
      { action: 'create', object_type: 'user', username: 'newbie' },
    ]);
    // The new user signs in and sees the organization and the site.
    const login = await t.call('POST', '/api/auth/jwt/token/', { body: { username: 'newbie', password: 'a good long password' } });
    expect(login.status).toBe(200);
    expect((await t.call('GET', '/api/organizations/inviting/', { token: login.body.access })).status).toBe(200);
    expect((await t.call('GET', '/api/sites/config/', { token: login.body.access, host: 'inv-shop.example.test' })).status).toBe(200);
    // A second use is refused, accept or decline.
    expect(
      (await t.call('POST', `/api/invitations/${created.token}/accept/`, { body: { username: 'again', password: 'a good long password' } }))
        .status,
    ).toBe(400);
    expect((await t.call('POST', `/api/invitations/${created.token}/decline/`)).status).toBe(400);
    expect((await t.call('GET', `/api/invitations/${created.token}/`)).body.status).toBe('accepted');
  });

  test('signing up needs username and password (400 naming them); a taken username is 409 and nothing changes', async () => {
    const created = await invite();
    const missing = await t.call('POST', `/api/invitations/${created.token}/accept/`, { body: {} });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['password', 'username']);
    expect(
      (await t.call('POST', `/api/invitations/${created.token}/accept/`, { body: { username: 'shorty', password: 'short' } })).body.errors
        .password,
    ).toBeDefined();
    expect(
      (await t.call('POST', `/api/invitations/${created.token}/accept/`, { body: { username: 'owner', password: 'long enough pw' } }))
        .status,
    ).toBe(409);
    expect((await t.call('GET', `/api/invitations/${created.token}/`)).body.status).toBe('pending');
    expect(await sql('SELECT id FROM users WHERE email = $1', [created.invitee_identifier])).toEqual([]);
  });

  test('a signed-in user with the invited address accepts without a body; an existing user must sign in (401)', async () => {
    const address = email();
    const invitee = await t.createUser({ email: address.toUpperCase() });
    const created = await invite({ invitee_identifier: address, permissions: ['invite_members'] });
    const anon = await t.call('POST', `/api/invitations/${created.token}/accept/`, {
      body: { username: 'someone', password: 'long enough pw' },
    });
    expect(anon.status).toBe(401);
    const res = await t.call('POST', `/api/invitations/${created.token}/accept/`, { token: tok(invitee) });
    expect(res.status).toBe(200);
    expect(res.body.member).toMatchObject({ uuid: invitee.uuid, role: 'member', permissions: ['invite_members'] });
  });

  test('a signed-in user with another address is 403', async () => {
    const created = await invite();
    const res = await t.call('POST', `/api/invitations/${created.token}/accept/`, { token: tok(member) });
    expect(res.status).toBe(403);
    expect((await t.call('GET', `/api/invitations/${created.token}/`)).body.status).toBe('pending');
  });

  test('an existing member accepting keeps their role and gains the permissions', async () => {
    const address = email();
    const created = await invite({ invitee_identifier: address, permissions: ['view_site'] });
    const late = await t.createUser({ email: address });
    await sql(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'owner', '{data:read}')`, [
      org.id,
      late.id,
    ]);
    const res = await t.call('POST', `/api/invitations/${created.token}/accept/`, { token: tok(late) });
    expect(res.body.member).toMatchObject({ role: 'owner', permissions: ['data:read', 'view_site'] });
  });

  test('decline answers the invitation as declined; then it cannot be accepted', async () => {
    const created = await invite();
    const res = await t.call('POST', `/api/invitations/${created.token}/decline/`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uuid: created.uuid, status: 'declined' });
    expect(
      (await t.call('POST', `/api/invitations/${created.token}/accept/`, { body: { username: 'x1', password: 'long enough pw' } })).status,
    ).toBe(400);
    expect((await t.call('POST', `/api/invitations/${created.token}/decline/`)).status).toBe(400);
    expect((await t.call('POST', `/api/invitations/${'y'.repeat(43)}/decline/`)).status).toBe(404);
  });

  test('an expired invitation is refused (400) for accept and decline', async () => {
    const created = await invite();
    await sql(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE uuid = $1`, [created.uuid]);
    const res = await t.call('POST', `/api/invitations/${created.token}/accept/`, {
      body: { username: 'tooLate', password: 'long enough pw' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('expired');
    expect((await t.call('POST', `/api/invitations/${created.token}/decline/`)).status).toBe(400);
  });

  test('concurrent accepts: exactly one wins', async () => {
    const created = await invite();
    const results = await Promise.all(
      ['racer1', 'racer2'].map((username) =>
        t.call('POST', `/api/invitations/${created.token}/accept/`, { body: { username, password: 'long enough pw' } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect((await sql('SELECT count(*)::int AS n FROM users WHERE email = $1', [created.invitee_identifier]))[0].n).toBe(1);
  });

  test('invitations of a deleted organization are not found', async () => {
    const created = await invite();
    await sql('UPDATE organizations SET is_deleted = true WHERE id = $1', [org.id]);
    try {
      expect((await t.call('GET', `/api/invitations/${created.token}/`)).status).toBe(404);
    } finally {
      await sql('UPDATE organizations SET is_deleted = false WHERE id = $1', [org.id]);
    }
  });

  test('no token ever reaches the log', async () => {
    const tokens = (await sql('SELECT token_hash FROM invitations')).length;
    expect(tokens).toBeGreaterThan(5);
    const joined = t.logs.join('\n');
    // Request lines carry the route pattern, not the token in the path.
    expect(joined).toContain('/api/invitations/:token/accept/');
    expect(joined).not.toMatch(/\/api\/invitations\/[A-Za-z0-9_-]{43}/);
  });
});

describe('with SMTP_URL', () => {
  test('the invitation is mailed through SMTP, with the link holding the token; expiry follows INVITATION_EXPIRES_DAYS', async () => {
    const received: { from: string; to: string[]; data: string }[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        let data = '';
        stream.on('data', (c: Buffer) => (data += c.toString()));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            data,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    const app = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}/?from=invites@tenantry.test`, INVITATION_EXPIRES_DAYS: '3' });
    try {
      const boss = await app.createUser({ username: 'boss' });
      await insertOrg(app.platform, 'mailing', boss.id);
      const res = await app.call('POST', '/api/organizations/mailing/invitations/', {
        token: app.tokenFor(boss),
        body: { invitee_identifier: 'mailme@example.test' },
      });
      expect(res.status).toBe(201);
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ from: 'invites@tenantry.test', to: ['mailme@example.test'] });
      const text = received[0].data.replace(/=\r?\n/g, '');
      expect(text).toContain('Subject: Invitation to join MAILING');
      expect(text).toContain(`http://localhost/api/invitations/${res.body.token}/`);
      const days = (Date.parse(res.body.expires_at) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(2.99);
      expect(days).toBeLessThan(3.01);
      const resent = await app.call('POST', `/api/organizations/mailing/invitations/${res.body.uuid}/resend/`, {
        token: app.tokenFor(boss),
      });
      expect(received).toHaveLength(2);
      expect(received[1].data.replace(/=\r?\n/g, '')).toContain(resent.body.token);
      const logs = app.logs.join('\n');
      expect(logs).toContain('invitation e-mail sent to mailme@example.test');
      expect(logs).not.toContain(res.body.token);
      expect(logs).not.toContain(resent.body.token);
    } finally {
      await app.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  test('an unreachable SMTP server is logged as a warning; the invitation is still created', async () => {
    const app = await startTestApp({ SMTP_URL: 'smtp://127.0.0.1:1/' });
    try {
      const boss = await app.createUser();
      await insertOrg(app.platform, 'unmailed', boss.id);
      const res = await app.call('POST', '/api/organizations/unmailed/invitations/', {
        token: app.tokenFor(boss),
        body: { invitee_identifier: 'nomail@example.test' },
      });
      expect(res.status).toBe(201);
      const warning = app.logs
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === 'invitation e-mail to nomail@example.test could not be sent');
      expect(warning).toMatchObject({ level: 'warn', err: expect.stringContaining('ECONNREFUSED') });
      expect(app.logs.join('\n')).not.toContain(res.body.token);
    } finally {
      await app.close();
    }
  });
});
