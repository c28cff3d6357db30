// Browser sessions and CSRF (DECISIONS §3).
import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function login(username: string, password = PASSWORD) {
  const res = await t.call('POST', '/api/auth/session/login/', { body: { username, password } });
  const cookie = (name: string) => res.cookies.find((c) => c.name === name);
  return { res, sessionid: cookie('sessionid')?.value ?? '', csrftoken: cookie('csrftoken')?.value ?? '', cookie };
}

test('login sets an HttpOnly Lax sessionid and a readable csrftoken; only a hash is stored', async () => {
  const user = await t.createUser();
  const { res, sessionid, csrftoken, cookie } = await login(user.username);
  expect(res.status).toBe(200);
  expect(res.body.user.uuid).toBe(user.uuid);
  expect(cookie('sessionid')).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
  expect(cookie('csrftoken')).toMatchObject({ sameSite: 'Lax', path: '/' });
  expect(cookie('csrftoken')!).not.toHaveProperty('httpOnly', true);
  expect(sessionid.length).toBeGreaterThan(30);
  const { rows } = await t.platform.pool.query('SELECT key_hash, csrf_token FROM sessions WHERE user_id = $1', [user.id]);
  expect(rows).toHaveLength(1);
  expect(rows[0].key_hash).toBe(crypto.createHash('sha256').update(sessionid).digest('hex'));
  expect(rows[0].key_hash).not.toContain(sessionid);
  expect(rows[0].csrf_token).toBe(csrftoken);

  const me = await t.call('GET', '/api/users/me/', { cookies: { sessionid } });
  expect(me.status).toBe(200);
  expect(me.body.uuid).toBe(user.uuid);
});

test('wrong credentials answer 401 and set no cookie', async () => {
  const user = await t.createUser();
  const { res } = await login(user.username, 'wrong');
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ detail: expect.any(String), code: 'authentication_failed', status_code: 401 });
  expect(res.cookies).toHaveLength(0);
});

test('unsafe requests on a session need X-CSRFToken equal to the session token', async () => {
  const user = await t.createUser();
  const { sessionid, csrftoken } = await login(user.username);
  const cookies = { sessionid, csrftoken };
  const missing = await t.call('POST', '/api/auth/session/logout/', { cookies });
  expect(missing.status).toBe(403);
  expect(missing.body).toEqual({ detail: expect.stringContaining('CSRF'), code: 'permission_denied', status_code: 403 });
  const wrong = await t.call('POST', '/api/auth/session/logout/', { cookies, headers: { 'x-csrftoken': 'x'.repeat(csrftoken.length) } });
  expect(wrong.status).toBe(403);
  // A cookie the attacker planted does not help: the header must match the server's token.
  const planted = await t.call('POST', '/api/auth/session/logout/', {
    cookies: { sessionid, csrftoken: 'evil' },
    headers: { 'x-csrftoken': 'evil' },
  });
  expect(planted.status).toBe(403);
  // Safe methods need nothing; bearer-authenticated requests need nothing.
  expect((await t.call('GET', '/api/users/me/', { cookies })).status).toBe(200);
  // JWT routes act on the tokens in their bodies, not on the session: exempt.
  expect((await t.call('POST', '/api/auth/jwt/token/verify/', { cookies, body: { token: 'x' } })).status).toBe(401);
  expect((await t.call('POST', '/api/auth/jwt/token/blacklist/', { cookies, body: { refresh: 'x' } })).status).toBe(401);

  const ok = await t.call('POST', '/api/auth/session/logout/', { cookies, headers: { 'x-csrftoken': csrftoken } });
  expect(ok.status).toBe(200);
  expect(ok.cookies.find((c) => c.name === 'sessionid')?.value).toBe('');
  expect((await t.call('GET', '/api/users/me/', { cookies })).status).toBe(401);
  const { rowCount } = await t.platform.pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [user.id]);
  expect(rowCount).toBe(0);
});

test('csrfExempt routes (login) skip the check; /graphql is left to Apollo', async () => {
  const user = await t.createUser();
  const first = await login(user.username);
  const again = await t.call('POST', '/api/auth/session/login/', {
    cookies: { sessionid: first.sessionid },
    body: { username: user.username, password: PASSWORD },
  });
  expect(again.status).toBe(200);
  // Signing in again replaces the old session (no fixation).
  expect((await t.call('GET', '/api/users/me/', { cookies: { sessionid: first.sessionid } })).status).toBe(401);
  const sessionid = again.cookies.find((c) => c.name === 'sessionid')!.value;
  const gql = await t.call('POST', '/graphql', { cookies: { sessionid }, body: { query: '{ __typename }' } });
  expect(gql.status).not.toBe(403);
});

test('a stale or unknown session cookie is anonymous, and deactivation ends sessions', async () => {
  const user = await t.createUser();
  expect((await t.call('GET', '/api/users/me/', { cookies: { sessionid: 'nope' } })).body.code).toBe('not_authenticated');
  const { sessionid } = await login(user.username);
  await t.platform.pool.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1", [user.id]);
  t.platform.invalidation.publish({ kind: 'user' });
  expect((await t.call('GET', '/api/users/me/', { cookies: { sessionid } })).status).toBe(401);
  const fresh = await login(user.username);
  await t.platform.pool.query('UPDATE users SET is_active = false WHERE id = $1', [user.id]);
  t.platform.invalidation.publish({ kind: 'user', uuid: user.uuid });
  expect((await t.call('GET', '/api/users/me/', { cookies: { sessionid: fresh.sessionid } })).status).toBe(401);
});
