// Rate limits (DECISIONS §1) through the real edge: in memory, then on the real Redis.
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../gateway/app.js';
import { defaultKeyPrefix } from '../../gateway/rate-limit.js';
import { registerRestRoutes } from '../../gateway/rest/register.js';
import { ROUTES } from '../../gateway/rest/route-table.js';
import type { RouteSpec } from '../../subgraphs/core/rest.js';
import { errors } from '../../subgraphs/core/errors.js';
import { startTestApp, type TestApp } from '../support/app.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const LIMITS = { RATE_LIMIT_STANDARD: '6/minute', RATE_LIMIT_WRITE: '3/minute', RATE_LIMIT_AUTH: '2/hour' };

// A sign-in route of our own, so the auth limit is tested whatever state the auth routes are in:
// it refuses every password, as a wrong password would be refused.
const signInFixture: RouteSpec = {
  method: 'POST',
  path: '/_test/sign-in/',
  scope: 'console',
  auth: 'optional',
  rateLimit: 'auth',
  module: 'test',
  summary: 'fixture: always a wrong password',
  handler: async () => {
    throw errors.authenticationFailed();
  },
};

async function appWithFixtures(t: TestApp): Promise<FastifyInstance> {
  const app = await buildApp(t.platform);
  registerRestRoutes(app, [signInFixture]);
  await app.ready();
  return app;
}

function limitSuite(label: string, env: Record<string, string>, before?: () => Promise<void>) {
  describe(label, () => {
    let t: TestApp;
    let fixtures: FastifyInstance;
    beforeAll(async () => {
      await before?.();
      t = await startTestApp({ ...LIMITS, ...env });
      fixtures = await appWithFixtures(t);
    });
    afterAll(async () => {
      await fixtures?.close();
      const redis = t?.platform.redis;
      if (redis) {
        // The database name in the prefix is unique to this run; clean up rather than wait for TTLs.
        const keys = await redis.keys(`${defaultKeyPrefix(t.platform.databaseUrl)}:*`);
        if (keys.length) await redis.del(...keys);
      }
      await t?.close();
    });

    test('standard limit counts down per user, then 429 with Retry-After and the envelope', async () => {
      const token = t.tokenFor(await t.createUser());
      const remaining: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await t.call('GET', '/api/users/me/', { token });
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBe('6');
        remaining.push(String(res.headers['x-ratelimit-remaining']));
      }
      expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
      const refused = await t.call('GET', '/api/users/me/', { token });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ detail: expect.stringContaining('throttled'), code: 'throttled', status_code: 429 });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');

      // Another user has a budget of their own.
      const other = await t.call('GET', '/api/users/me/', { token: t.tokenFor(await t.createUser()) });
      expect(other.status).toBe(200);
      expect(other.headers['x-ratelimit-remaining']).toBe('5');
    });

    test('anonymous requests are counted per client address', async () => {
      const a = { headers: { 'x-forwarded-for': '10.0.0.1' } };
      const first = await t.call('GET', '/api/organizations/');
      expect(first.status).toBe(401);
      expect(first.headers['x-ratelimit-limit']).toBe('6');
      // inject() always comes from 127.0.0.1 and TRUST_PROXY is off: the header does not
      // open a new budget.
      const second = await t.call('GET', '/api/organizations/', a);
      expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
    });

    test('unsafe methods also count the write limit, and its tighter budget is reported', async () => {
      const token = t.tokenFor(await t.createUser());
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await t.call('DELETE', '/api/organizations/no-such-org/', { token });
        expect(res.status).not.toBe(429);
        expect(res.headers['x-ratelimit-limit']).toBe('3');
        seen.push(String(res.headers['x-ratelimit-remaining']));
      }
      expect(seen).toEqual(['2', '1', '0']);
      const refused = await t.call('POST', '/api/organizations/', { token, body: { name: 'Acme' } });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('throttled');
      // Reads still have standard budget left (6 - 4 used).
      const read = await t.call('GET', '/api/users/me/', { token });
      expect(read.status).toBe(200);
      expect(read.headers['x-ratelimit-limit']).toBe('6');
      expect(read.headers['x-ratelimit-remaining']).toBe('1');
    });

    test('every sign-in attempt counts the auth limit, wrong passwords included', async () => {
      const attempt = () =>
        fixtures.inject({
          method: 'POST',
          url: '/api/_test/sign-in/',
          headers: { host: 'localhost', 'content-type': 'application/json' },
          payload: JSON.stringify({ username: 'ann', password: 'wrong-password' }),
          remoteAddress: '192.0.2.10',
        });
      const first = await attempt();
      expect(first.statusCode).toBe(401);
      expect(first.headers['x-ratelimit-limit']).toBe('2');
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      expect((await attempt()).statusCode).toBe(401);
      const refused = await attempt();
      expect(refused.statusCode).toBe(429);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'throttled', status_code: 429 });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(60);
    });

    test('health checks are not counted', async () => {
      for (let i = 0; i < 8; i++) expect((await t.call('GET', '/healthz')).status).toBe(200);
    });

    if (env.REDIS_URL) {
      test('counters live in Redis under the platform database prefix', async () => {
        const prefix = defaultKeyPrefix(t.platform.databaseUrl);
        const keys = await t.platform.redis!.keys(`${prefix}:*`);
        expect(keys.length).toBeGreaterThan(0);
        expect(keys.some((k) => k.startsWith(`${prefix}:standard:u:`))).toBe(true);
        expect(keys.some((k) => k.startsWith(`${prefix}:auth:ip:`))).toBe(true);
      });
    }
  });
}

limitSuite('rate limits in memory', {});

limitSuite('rate limits on Redis', { REDIS_URL }, async () => {
  // Fail loudly: a skipped Redis test would hide that shared counters were never checked.
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
  try {
    await probe.connect();
    await probe.ping();
  } catch (e) {
    throw new Error(
      `Redis at ${REDIS_URL} is unreachable (${(e as Error).message}). Start Redis or set REDIS_URL: this test needs a real server.`,
    );
  } finally {
    probe.disconnect();
  }
});

test('sign-in routes in the route table carry the auth limit', () => {
  const signIn = ROUTES.filter((r) => r.method === 'POST' && /^\/auth\/(jwt\/token|session\/login)\/$/.test(r.path));
  // Both sign-in routes exist: a table without them would pass the loop below vacuously.
  expect(signIn.map((r) => r.path).sort()).toEqual(['/auth/jwt/token/', '/auth/session/login/']);
  for (const r of signIn) expect({ path: r.path, rateLimit: r.rateLimit }).toEqual({ path: r.path, rateLimit: 'auth' });
});
