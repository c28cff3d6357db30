// Social sign-in against a real OpenID Connect provider (oidc-provider) on loopback.
import jwt from 'jsonwebtoken';
import { startTestApp, type TestApp } from '../support/app.js';
import { driveProvider, startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';

const CALLBACK = 'http://localhost/api/auth/social/test/callback/';
let t: TestApp;
let op: TestOidcProvider;

beforeAll(async () => {
  op = await startOidcProvider([CALLBACK]);
  t = await startTestApp({
    OIDC_PROVIDERS: JSON.stringify([{ name: 'test', issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret }]),
  });
});
afterAll(async () => {
  await t.close();
  await op.close();
});

/** Runs the whole flow as `account`; returns our callback's answer. */
async function signIn(account: string, next?: string) {
  op.nextAccount = account;
  const start = await t.call('GET', `/api/auth/social/test/login/${next ? `?next=${encodeURIComponent(next)}` : ''}`);
  expect(start.status).toBe(302);
  const state = start.cookies.find((c) => c.name === 'oidc_state')!;
  expect(state).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  const location = new URL(start.headers.location as string);
  expect(location.origin).toBe(op.issuer);
  expect(location.searchParams.get('code_challenge_method')).toBe('S256');
  expect(location.searchParams.get('state')).toBeTruthy();
  expect(location.searchParams.get('nonce')).toBeTruthy();
  expect(location.searchParams.get('redirect_uri')).toBe(CALLBACK);
  const back = new URL(await driveProvider(location.href, CALLBACK));
  const res = await t.call('GET', back.pathname + back.search, { cookies: { oidc_state: state.value } });
  return { res, back, stateCookie: state.value };
}

test('first sign-in creates a user without a usable password and returns tokens', async () => {
  op.accounts.set('alice-sub', { email: 'alice@idp.test', email_verified: true, preferred_username: 'alice', given_name: 'Alice' });
  const { res } = await signIn('alice-sub');
  expect(res.status).toBe(200);
  expect(res.body.user).toMatchObject({ username: 'alice', email: 'alice@idp.test', first_name: 'Alice' });
  expect((jwt.decode(res.body.access) as jwt.JwtPayload).sub).toBe(res.body.user.uuid);
  const { rows } = await t.platform.pool.query(
    `SELECT u.password_hash FROM users u JOIN social_accounts s ON s.user_id = u.id WHERE s.provider = 'test' AND s.subject = 'alice-sub'`,
  );
  expect(rows).toEqual([{ password_hash: null }]);
  expect((await t.call('GET', '/api/users/me/', { token: res.body.access })).body.username).toBe('alice');
  expect((await t.call('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: res.body.refresh } })).status).toBe(200);

  // The next sign-in finds the same user by (provider, subject).
  const again = await signIn('alice-sub');
  expect(again.res.body.user.uuid).toBe(res.body.user.uuid);
});

test('a verified e-mail links to the existing user; an unverified one does not', async () => {
  const bob = await t.createUser({ username: 'bob', email: 'Bob@Example.test' });
  op.accounts.set('bob-sub', { email: 'bob@example.test', email_verified: true });
  const linked = await signIn('bob-sub');
  expect(linked.res.body.user.uuid).toBe(bob.uuid);

  const carol = await t.createUser({ username: 'carol', email: 'carol@example.test' });
  op.accounts.set('mallory-sub', { email: 'carol@example.test', email_verified: false, preferred_username: 'carol' });
  const other = await signIn('mallory-sub');
  expect(other.res.status).toBe(200);
  expect(other.res.body.user.uuid).not.toBe(carol.uuid);
  expect(other.res.body.user.username).toMatch(/^carol-[0-9a-f]{6}$/);
  expect(other.res.body.user.email).toBe(''); // unverified addresses are not kept
});

test('with ?next= the callback redirects there with the tokens in the fragment', async () => {
  op.accounts.set('dave-sub', { email: 'dave@idp.test', email_verified: true });
  const { res } = await signIn('dave-sub', '/app/welcome?x=1');
  expect(res.status).toBe(302);
  const to = new URL(res.headers.location as string, 'http://localhost');
  expect(to.pathname + to.search).toBe('/app/welcome?x=1');
  const fragment = new URLSearchParams(to.hash.slice(1));
  expect((jwt.decode(fragment.get('access')!) as jwt.JwtPayload).type).toBe('access');
  expect((jwt.decode(fragment.get('refresh')!) as jwt.JwtPayload).type).toBe('refresh');
  const same = await signIn('dave-sub', 'http://localhost/done');
  expect(same.res.headers.location).toMatch(/^http:\/\/localhost\/done#access=/);
});

test('open redirects are refused', async () => {
  for (const next of ['https://evil.example/x', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)']) {
    const res = await t.call('GET', `/api/auth/social/test/login/?next=${encodeURIComponent(next)}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid');
  }
});

test('unknown provider 404; missing, tampered or replayed state 401', async () => {
  expect((await t.call('GET', '/api/auth/social/nope/login/')).status).toBe(404);
  expect((await t.call('GET', '/api/auth/social/nope/callback/?code=x&state=y')).body.code).toBe('not_found');

  op.accounts.set('erin-sub', { email: 'erin@idp.test', email_verified: true });
  op.nextAccount = 'erin-sub';
  const start = await t.call('GET', '/api/auth/social/test/login/');
  const state = start.cookies.find((c) => c.name === 'oidc_state')!.value;
  const back = new URL(await driveProvider(start.headers.location as string, CALLBACK));
  const path = back.pathname + back.search;
  const noCookie = await t.call('GET', path);
  expect(noCookie.status).toBe(401);
  expect(noCookie.body.code).toBe('authentication_failed');
  const tampered = state.slice(0, -2) + (state.endsWith('AA') ? 'BB' : 'AA');
  expect((await t.call('GET', path, { cookies: { oidc_state: tampered } })).status).toBe(401);
  // A state from another sign-in attempt does not match this response.
  const otherStart = await t.call('GET', '/api/auth/social/test/login/');
  const otherState = otherStart.cookies.find((c) => c.name === 'oidc_state')!.value;
  expect((await t.call('GET', path, { cookies: { oidc_state: otherState } })).status).toBe(401);
  const ok = await t.call('GET', path, { cookies: { oidc_state: state } });
  expect(ok.status).toBe(200);
  // The code is single-use at the provider.
  expect((await t.call('GET', path, { cookies: { oidc_state: state } })).status).toBe(401);
  // The provider's error answer (user denied) is a 401, not a 500.
  expect(
    (await t.call('GET', `/api/auth/social/test/callback/?error=access_denied&state=x`, { cookies: { oidc_state: state } })).status,
  ).toBe(401);
});

test('a disabled linked user cannot sign in socially', async () => {
  op.accounts.set('frank-sub', { email: 'frank@idp.test', email_verified: true });
  const first = await signIn('frank-sub');
  await t.platform.pool.query('UPDATE users SET is_active = false WHERE uuid = $1', [first.res.body.user.uuid]);
  const again = await signIn('frank-sub');
  expect(again.res.status).toBe(401);
  expect(again.res.body.code).toBe('authentication_failed');
});
