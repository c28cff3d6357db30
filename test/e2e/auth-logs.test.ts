// No password, token, refresh token, session id, CSRF token, API key or OAuth secret may
// appear in any log line (DECISIONS §1), whatever the outcome of the request.
import { apiKeyFormat } from '../../subgraphs/tenancy/api-key-format.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { driveProvider, startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';

const CALLBACK = 'http://localhost/api/auth/social/test/callback/';
let t: TestApp;
let op: TestOidcProvider;
const secrets: string[] = [];
const keep = <T extends string | undefined>(v: T): T => {
  if (v) secrets.push(v);
  return v;
};

beforeAll(async () => {
  op = await startOidcProvider([CALLBACK]);
  t = await startTestApp({
    LOG_LEVEL: 'trace',
    OIDC_PROVIDERS: JSON.stringify([{ name: 'test', issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret }]),
  });
  keep(op.clientSecret);
});
afterAll(async () => {
  await t.close();
  await op.close();
});

test('sign-in flows leave no secret in the logs', async () => {
  const password = keep('s3cret-Passw0rd-for-logs');
  const wrong = keep('wr0ng-Passw0rd-for-logs');
  const user = await t.createUser({ password });

  // JWT: failure, success, refresh, verify, reuse, blacklist.
  await t.call('POST', '/api/auth/jwt/token/', { body: { username: user.username, password: wrong } });
  await t.call('POST', '/api/auth/jwt/token/', { body: { username: 'ghost-user', password: wrong } });
  const pair = (await t.call('POST', '/api/auth/jwt/token/', { body: { username: user.username, password } })).body;
  keep(pair.access);
  keep(pair.refresh);
  const rotated = (await t.call('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: pair.refresh } })).body;
  keep(rotated.access);
  keep(rotated.refresh);
  await t.call('POST', '/api/auth/jwt/token/verify/', { body: { token: rotated.access } });
  await t.call('GET', '/api/users/me/', { token: rotated.access });
  await t.call('GET', `/api/users/me/?token=${rotated.access}`, { token: `${rotated.access}x` });
  await t.call('POST', '/api/auth/jwt/token/refresh/', { body: { refresh: pair.refresh } }); // reuse → family revoked
  const again = (await t.call('POST', '/api/auth/jwt/token/', { body: { username: user.username, password } })).body;
  keep(again.refresh);
  await t.call('POST', '/api/auth/jwt/token/blacklist/', { body: { refresh: again.refresh }, token: keep(again.access) });

  // Session: login, CSRF failure, logout.
  const login = await t.call('POST', '/api/auth/session/login/', { body: { username: user.username, password } });
  const sessionid = keep(login.cookies.find((c) => c.name === 'sessionid')!.value);
  const csrftoken = keep(login.cookies.find((c) => c.name === 'csrftoken')!.value);
  await t.call('GET', '/api/users/me/', { cookies: { sessionid } });
  await t.call('POST', '/api/auth/session/logout/', { cookies: { sessionid }, headers: { 'x-csrftoken': 'wrong' } });
  await t.call('POST', '/api/auth/session/logout/', { cookies: { sessionid, csrftoken }, headers: { 'x-csrftoken': csrftoken } });

  // API key: right site, wrong host, unknown key.
  const q = (sql: string, p: unknown[]) => t.platform.pool.query(sql, p).then((r) => r.rows[0]);
  const org = await q("INSERT INTO organizations (slug, name) VALUES ('logs', 'logs') RETURNING id", []);
  const site = await q(
    "INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ('logs', 'logs', $1, 'site_logs') RETURNING id",
    [org.id],
  );
  await q("INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ('logs', 'logs.localhost', $1, true) RETURNING id", [site.id]);
  const app = await q("INSERT INTO apps (site_id, slug, name) VALUES ($1, 'a', 'a') RETURNING id", [site.id]);
  const key = apiKeyFormat.generate();
  keep(key.key);
  keep(key.hash);
  await q('INSERT INTO api_keys (app_id, prefix, key_hash) VALUES ($1, $2, $3) RETURNING id', [app.id, key.prefix, key.hash]);
  await t.call('GET', '/api/users/me/', { host: 'logs.localhost', headers: { authorization: `Api-Key ${key.key}` } });
  await t.call('GET', '/api/users/me/', { headers: { authorization: `Api-Key ${key.key}` } });
  await t.call('GET', '/api/users/me/', { headers: { authorization: `Api-Key ${keep(apiKeyFormat.generate().key)}` } });

  // Social sign-in: a successful flow, then a failing replay of the same code.
  op.accounts.set('logs-sub', { email: 'logs@idp.test', email_verified: true });
  op.nextAccount = 'logs-sub';
  const start = await t.call('GET', '/api/auth/social/test/login/?next=/after');
  const state = keep(start.cookies.find((c) => c.name === 'oidc_state')!.value);
  const back = new URL(await driveProvider(start.headers.location as string, CALLBACK));
  keep(back.searchParams.get('code')!);
  keep(back.searchParams.get('state')!);
  const done = await t.call('GET', back.pathname + back.search, { cookies: { oidc_state: state } });
  const fragment = new URLSearchParams(new URL(done.headers.location as string, 'http://localhost').hash.slice(1));
  keep(fragment.get('access')!);
  keep(fragment.get('refresh')!);
  await t.call('GET', back.pathname + back.search, { cookies: { oidc_state: state } });

  expect(secrets.length).toBeGreaterThanOrEqual(19);
  const logs = t.logs.join('\n');
  expect(t.logs.length).toBeGreaterThan(20);
  for (const secret of secrets) {
    expect(logs.includes(secret) ? `leaked: ${secret}` : 'clean').toBe('clean');
    // Each part of a JWT (header excepted, it is shared) must not appear either.
    for (const part of secret.split('.').slice(1)) {
      if (part.length > 16) expect(logs.includes(part) ? `leaked part: ${part}` : 'clean').toBe('clean');
    }
  }
});
