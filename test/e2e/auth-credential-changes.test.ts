// Credential changes revoke what they replace (issue 10 item 4; DECISIONS §4): changing one's
// own password or e-mail needs current_password; a password change, an administrator's reset,
// a deactivation or deletion, and a refresh-token reuse each retire every access token, refresh
// token and session issued before; reactivation does not bring them back. Another process
// sharing the database (a second platform here) learns of it through the invalidation bus.
import { buildApp } from '../../gateway/app.js';
import { loadConfig } from '../../subgraphs/core/config.js';
import { createLogger } from '../../subgraphs/core/logger.js';
import { startPlatform, type Platform } from '../../subgraphs/core/platform.js';
import { MODULES } from '../../subgraphs/modules.js';
import { startTestApp, type TestApp } from '../support/app.js';
import type { FastifyInstance } from 'fastify';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a whole new password';
let t: TestApp;
let staffToken: string;

beforeAll(async () => {
  t = await startTestApp();
  staffToken = t.tokenFor(await t.createUser({ isStaff: true, isSuperuser: true }));
});
afterAll(() => t.close());

async function signIn(username: string, password = PASSWORD) {
  const jwtRes = await t.call('POST', '/api/auth/jwt/token/', { body: { username, password } });
  expect(jwtRes.status).toBe(200);
  const session = await t.call('POST', '/api/auth/session/login/', { body: { username, password } });
  expect(session.status).toBe(200);
  const sessionid = session.cookies.find((c) => c.name === 'sessionid')!.value;
  return { access: jwtRes.body.access as string, refresh: jwtRes.body.refresh as string, sessionid };
}

type Creds = Awaited<ReturnType<typeof signIn>>;
const me = (access: string) => t.call('GET', '/api/users/me/', { token: access });
const meBySession = (sessionid: string) => t.call('GET', '/api/users/me/', { cookies: { sessionid } });
const refresh = (token: string) => t.call('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: token } });
const verify = (token: string) => t.call('POST', '/api/auth/jwt/token/verify/', { body: { token } });

async function expectAllRevoked(c: Creds) {
  expect((await me(c.access)).status).toBe(401);
  expect((await verify(c.access)).status).toBe(401);
  expect((await verify(c.refresh)).status).toBe(401);
  expect((await refresh(c.refresh)).status).toBe(401);
  expect((await meBySession(c.sessionid)).status).toBe(401);
}

async function expectAllWork(c: Creds) {
  expect((await me(c.access)).status).toBe(200);
  expect((await verify(c.refresh)).status).toBe(200);
  expect((await meBySession(c.sessionid)).status).toBe(200);
}

describe('current_password', () => {
  test("changing one's own password or e-mail needs it: missing or wrong → 400 naming it; right → 200", async () => {
    const user = await t.createUser();
    const { access } = await signIn(user.username);
    for (const body of [{ password: NEW_PASSWORD }, { email: 'new@example.test' }]) {
      const missing = await t.call('PATCH', '/api/users/me/', { token: access, body });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: 'invalid', errors: { current_password: [expect.any(String)] } });
      const wrong = await t.call('PATCH', `/api/users/${user.slug}/`, {
        token: access,
        body: { ...body, current_password: 'not it at all' },
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.errors.current_password).toEqual([expect.stringContaining('not correct')]);
    }
    // Other fields, or the same e-mail, need nothing.
    expect((await t.call('PATCH', '/api/users/me/', { token: access, body: { first_name: 'Ann', email: user.email } })).status).toBe(200);
    const ok = await t.call('PATCH', '/api/users/me/', {
      token: access,
      body: { email: 'moved@example.test', current_password: PASSWORD },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.email).toBe('moved@example.test');
    // An e-mail change alone revokes nothing.
    expect((await me(access)).status).toBe(200);
  });

  test('GraphQL updateUser takes currentPassword the same way', async () => {
    const user = await t.createUser();
    const { access } = await signIn(user.username);
    const mutate = (input: Record<string, unknown>) =>
      t.call('POST', '/graphql', {
        token: access,
        body: {
          query: 'mutation($s: String!, $i: UpdateUserInput!) { updateUser(slug: $s, input: $i) { email } }',
          variables: { s: user.slug, i: input },
        },
      });
    const refused = await mutate({ email: 'g@example.test' });
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'invalid', errors: { current_password: [expect.any(String)] } });
    const ok = await mutate({ email: 'g@example.test', currentPassword: PASSWORD });
    expect(ok.body.data.updateUser.email).toBe('g@example.test');
  });

  test("an administrator resets another user's password without it", async () => {
    const user = await t.createUser();
    const res = await t.call('PATCH', `/api/users/${user.slug}/`, { token: staffToken, body: { password: NEW_PASSWORD } });
    expect(res.status).toBe(200);
  });
});

describe('revocation', () => {
  test('a password change revokes every older access token, refresh token and session (the new password signs in)', async () => {
    const user = await t.createUser();
    const [a, b] = [await signIn(user.username), await signIn(user.username)];
    const res = await t.call('PATCH', '/api/users/me/', { token: a.access, body: { password: NEW_PASSWORD, current_password: PASSWORD } });
    expect(res.status).toBe(200);
    await expectAllRevoked(a);
    await expectAllRevoked(b);
    // A revoked refresh token is not a reuse: signing in afresh works and stays working.
    const fresh = await signIn(user.username, NEW_PASSWORD);
    await expectAllWork(fresh);
    expect((await refresh(b.refresh)).status).toBe(401);
    await expectAllWork(fresh);
    expect((await t.call('POST', '/api/auth/jwt/token/', { body: { username: user.username, password: PASSWORD } })).status).toBe(401);
  });

  test("an administrator's password reset revokes the user's tokens and sessions", async () => {
    const user = await t.createUser();
    const c = await signIn(user.username);
    expect((await t.call('PATCH', `/api/users/${user.slug}/`, { token: staffToken, body: { password: NEW_PASSWORD } })).status).toBe(200);
    await expectAllRevoked(c);
  });

  test('deactivation revokes them and reactivation does not revive them; deletion and restore alike', async () => {
    const user = await t.createUser();
    const c = await signIn(user.username);
    expect((await t.call('PATCH', `/api/users/${user.slug}/`, { token: staffToken, body: { is_active: false } })).status).toBe(200);
    await expectAllRevoked(c);
    expect((await t.call('PATCH', `/api/users/${user.slug}/`, { token: staffToken, body: { is_active: true } })).status).toBe(200);
    await expectAllRevoked(c);
    const d = await signIn(user.username);
    await expectAllWork(d);
    expect((await t.call('DELETE', `/api/users/${user.slug}/`, { token: staffToken })).status).toBe(204);
    expect((await t.call('POST', `/api/users/${user.slug}/restore/`, { token: staffToken })).status).toBe(200);
    await expectAllRevoked(d);
    await expectAllWork(await signIn(user.username));
  });

  test("refresh-token reuse revokes every token and session of the user, the family's access tokens included", async () => {
    const user = await t.createUser();
    const victim = await signIn(user.username);
    const other = await signIn(user.username); // another device
    const rotated = await refresh(victim.refresh);
    expect(rotated.status).toBe(200);
    expect((await me(rotated.body.access)).status).toBe(200);
    // The old refresh token again: a copy is in someone else's hands.
    expect((await refresh(victim.refresh)).status).toBe(401);
    expect((await me(rotated.body.access)).status).toBe(401);
    expect((await refresh(rotated.body.refresh)).status).toBe(401);
    await expectAllRevoked(other);
    expect(t.logs.some((l) => l.includes('refresh token reuse detected'))).toBe(true);
    await expectAllWork(await signIn(user.username));
  });

  test('other changes (a name) revoke nothing', async () => {
    const user = await t.createUser();
    const c = await signIn(user.username);
    expect((await t.call('PATCH', `/api/users/${user.slug}/`, { token: staffToken, body: { first_name: 'Bo' } })).status).toBe(200);
    await expectAllWork(c);
  });
});

describe('across processes', () => {
  let second: Platform;
  let app2: FastifyInstance;

  beforeAll(async () => {
    const config = loadConfig({
      DATABASE_URL: t.platform.databaseUrl,
      DATA_DIR: t.platform.config.dataDir,
      RATE_LIMIT_STANDARD: 'off',
      RATE_LIMIT_AUTH: 'off',
      RATE_LIMIT_WRITE: 'off',
      LOG_LEVEL: 'silent',
    });
    second = await startPlatform(config, createLogger('silent'), { modules: MODULES });
    app2 = await buildApp(second);
    await app2.ready();
  });
  afterAll(async () => {
    await app2.close();
    await second.close();
  });

  test('a password change in one process revokes the access token that another process has cached', async () => {
    const user = await t.createUser();
    const c = await signIn(user.username);
    const meThere = async () =>
      (await app2.inject({ method: 'GET', url: '/api/users/me/', headers: { host: 'localhost', authorization: `Bearer ${c.access}` } }))
        .statusCode;
    expect(await meThere()).toBe(200); // now cached over there
    expect(
      (await t.call('PATCH', '/api/users/me/', { token: c.access, body: { password: NEW_PASSWORD, current_password: PASSWORD } })).status,
    ).toBe(200);
    // The bus delivers within milliseconds; poll briefly rather than assume a time.
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = await meThere();
    }
    expect(status).toBe(401);
  });
});
