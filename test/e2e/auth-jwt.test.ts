// JWT sign-in, rotation with reuse detection, verify, blacklist, JWKS (DECISIONS §3).
import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ROUTES } from '../../gateway/rest/route-table.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  t = await startTestApp({ JWT_ACCESS_TTL: '10m', JWT_REFRESH_TTL: '2d' });
});
afterAll(() => t.close());

const obtain = (username: string, password = PASSWORD) => t.call('POST', '/api/auth/jwt/token/', { body: { username, password } });
const refresh = (token: string) => t.call('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: token } });
const me = (token: string) => t.call('GET', '/api/users/me/', { token });

test('token pair with exactly the decided claims and configured lifetimes', async () => {
  const user = await t.createUser({ isStaff: true });
  const res = await obtain(user.username);
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(Object.keys(res.body).sort()).toEqual(['access', 'refresh']);
  const access = jwt.decode(res.body.access, { complete: true })!;
  const claims = access.payload as jwt.JwtPayload;
  expect(Object.keys(claims).sort()).toEqual(['exp', 'iat', 'is_staff', 'is_superuser', 'jti', 'sub', 'type', 'username', 'ver']);
  expect(claims).toMatchObject({ sub: user.uuid, username: user.username, is_staff: true, is_superuser: false, type: 'access' });
  expect(claims.exp! - claims.iat!).toBe(600);
  const r = jwt.decode(res.body.refresh) as jwt.JwtPayload;
  expect(r.type).toBe('refresh');
  expect(r.exp! - r.iat!).toBe(2 * 86400);
  expect(access.header.alg).toBe('RS256');
  expect((await me(res.body.access)).body.uuid).toBe(user.uuid);
});

test('JWKS publishes the key that verifies issued tokens, without credentials', async () => {
  const user = await t.createUser();
  const { access } = (await obtain(user.username)).body;
  const res = await t.call('GET', '/.well-known/jwks.json', { headers: { authorization: 'Bearer garbage' } });
  expect(res.status).toBe(200);
  const { header } = jwt.decode(access, { complete: true })!;
  const jwk = res.body.keys.find((k: { kid: string }) => k.kid === header.kid);
  expect(jwk).toBeDefined();
  expect(jwk.d).toBeUndefined(); // public part only
  const key = crypto.createPublicKey({ key: jwk, format: 'jwk' });
  expect((jwt.verify(access, key, { algorithms: ['RS256'] }) as jwt.JwtPayload).sub).toBe(user.uuid);
});

test('wrong password, unknown user and missing fields', async () => {
  const user = await t.createUser();
  const wrong = await obtain(user.username, 'not the password');
  expect(wrong.status).toBe(401);
  expect(wrong.body).toEqual({ detail: expect.any(String), code: 'authentication_failed', status_code: 401 });
  const unknown = await obtain('nobody-here');
  expect(unknown.status).toBe(401);
  expect(unknown.body.code).toBe('authentication_failed');
  expect(unknown.body.detail).toBe(wrong.body.detail);
  const missing = await t.call('POST', '/api/auth/jwt/token/', { body: { username: user.username } });
  expect(missing.status).toBe(400);
});

test('an unknown username costs about as much as a wrong password', async () => {
  const user = await t.createUser();
  const time = async (name: string) => {
    const start = process.hrtime.bigint();
    await obtain(name, 'wrong password');
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  await time(user.username); // warm-up (the dummy hash is computed once)
  await time('ghost');
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 5; i++) {
    known.push(await time(user.username));
    unknown.push(await time(`ghost${i}`));
  }
  expect(median(unknown)).toBeGreaterThan(median(known) * 0.6);
});

test('login routes carry the auth rate limit', () => {
  const limited = ROUTES.filter((r) => r.rateLimit === 'auth').map((r) => r.path);
  expect(limited).toEqual(expect.arrayContaining(['/auth/jwt/token/', '/auth/session/login/', '/auth/social/:provider/callback/']));
});

test('refresh rotates both tokens; reusing a spent refresh token revokes the family', async () => {
  const user = await t.createUser();
  const first = (await obtain(user.username)).body;
  const second = await refresh(first.refresh);
  expect(second.status).toBe(200);
  expect(second.body.access).not.toBe(first.access);
  expect(second.body.refresh).not.toBe(first.refresh);
  expect((await me(second.body.access)).status).toBe(200);
  const third = await refresh(second.body.refresh);
  expect(third.status).toBe(200);

  const reuse = await refresh(first.refresh);
  expect(reuse.status).toBe(401);
  expect(reuse.body.code).toBe('token_not_valid');
  // The thief's or the owner's newest token now fails too: the whole family is revoked.
  expect((await refresh(third.body.refresh)).status).toBe(401);
  const { rows } = await t.platform.pool.query(
    'SELECT count(*)::int AS n, count(revoked_at)::int AS revoked FROM refresh_tokens WHERE user_id = $1',
    [user.id],
  );
  expect(rows[0]).toEqual({ n: 3, revoked: 3 });
  // Another sign-in starts a fresh family.
  expect((await refresh((await obtain(user.username)).body.refresh)).status).toBe(200);
});

test('concurrent use of one refresh token: exactly one rotation wins', async () => {
  const user = await t.createUser();
  const { refresh: token } = (await obtain(user.username)).body;
  const results = await Promise.all([refresh(token), refresh(token), refresh(token)]);
  expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
});

test('an access token is not a refresh token, and forged tokens are refused', async () => {
  const user = await t.createUser();
  const pair = (await obtain(user.username)).body;
  expect((await refresh(pair.access)).status).toBe(401);
  expect((await me(pair.refresh)).status).toBe(401);
  const claims = jwt.decode(pair.access) as jwt.JwtPayload;
  const none = jwt.sign({ ...claims, is_superuser: true }, '', { algorithm: 'none' });
  expect((await me(none)).body.code).toBe('token_not_valid');
  // HS256 "signed" with the public key must not pass as RS256.
  const hs = jwt.sign(claims, crypto.randomBytes(32), { algorithm: 'HS256' });
  expect((await me(hs)).status).toBe(401);
  const tampered = pair.access.replace(
    /\.[^.]+\./,
    `.${Buffer.from(JSON.stringify({ ...claims, is_superuser: true })).toString('base64url')}.`,
  );
  expect((await me(tampered)).status).toBe(401);
  expect((await t.call('GET', '/api/users/me/', { headers: { authorization: 'Basic abc' } })).body.code).toBe('authentication_failed');
});

test('verify answers 200 for valid tokens and 401 token_not_valid otherwise', async () => {
  const user = await t.createUser();
  const pair = (await obtain(user.username)).body;
  const verify = (token: unknown) => t.call('POST', '/api/auth/jwt/token/verify/', { body: { token } });
  expect(await verify(pair.access)).toMatchObject({ status: 200, body: {} });
  expect((await verify(pair.refresh)).status).toBe(200);
  const bad = await verify(`${pair.access}x`);
  expect(bad.status).toBe(401);
  expect(bad.body).toEqual({ detail: expect.any(String), code: 'token_not_valid', status_code: 401 });
  expect((await verify('')).status).toBe(400);
  await refresh(pair.refresh);
  expect((await verify(pair.refresh)).status).toBe(401); // spent
});

test('blacklist logs out: refresh and the access token sent along stop working', async () => {
  const user = await t.createUser();
  const pair = (await obtain(user.username)).body;
  const other = (await obtain(user.username)).body; // another device, another family
  const res = await t.call('POST', '/api/auth/jwt/token/blacklist/', { body: { refresh: pair.refresh }, token: pair.access });
  expect(res.status).toBe(200);
  expect((await refresh(pair.refresh)).status).toBe(401);
  expect((await me(pair.access)).body.code).toBe('token_not_valid');
  expect((await me(other.access)).status).toBe(200);
  expect((await refresh(other.refresh)).status).toBe(200);
  const again = await t.call('POST', '/api/auth/jwt/token/blacklist/', { body: { refresh: pair.refresh } });
  expect(again.status).toBe(401);
  expect((await t.call('POST', '/api/auth/jwt/token/blacklist/', { body: { refresh: 'nope' } })).status).toBe(401);
});

test('deactivated and soft-deleted users are refused', async () => {
  const user = await t.createUser();
  const gone = await t.createUser();
  const pair = (await obtain(user.username)).body;
  const gonePair = (await obtain(gone.username)).body;
  expect((await me(pair.access)).status).toBe(200);
  await t.platform.pool.query('UPDATE users SET is_active = false WHERE id = $1', [user.id]);
  await t.platform.pool.query('UPDATE users SET is_deleted = true, deleted_at = now() WHERE id = $1', [gone.id]);
  // Refresh checks the database every time.
  expect((await refresh(pair.refresh)).body.code).toBe('authentication_failed');
  expect((await refresh(gonePair.refresh)).status).toBe(401);
  expect((await obtain(user.username)).status).toBe(401);
  // Access tokens: refused once the per-process cache entry expires (AUTH_CACHE_TTL_MS),
  // at once where the change was made (the writer publishes a user invalidation).
  t.platform.invalidation.publish({ kind: 'user', uuid: user.uuid });
  t.platform.invalidation.publish({ kind: 'user', uuid: gone.uuid });
  expect((await me(pair.access)).body.code).toBe('token_not_valid');
  expect((await me(gonePair.access)).status).toBe(401);
});
