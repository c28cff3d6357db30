// Configuration is parsed once into a frozen object; every bad value names its variable.
import { ConfigError, loadConfig, parseDuration, parseRateLimit } from '../../subgraphs/core/config.js';

const load = (env: Record<string, string>) => loadConfig(env, '/srv/app');

test('defaults with no configuration', () => {
  const c = load({});
  expect(c).toMatchObject({
    host: '127.0.0.1',
    port: 4000,
    dataDir: '/srv/app/.data',
    databaseUrl: null,
    redisUrl: null,
    platformHosts: ['localhost', '127.0.0.1'],
    siteBaseDomain: 'localhost',
    trustProxy: false,
    rateLimits: {
      standard: { points: 100, durationSec: 60 },
      auth: { points: 20, durationSec: 3600 },
      write: { points: 30, durationSec: 60 },
    },
    jwt: { accessTtlSec: 900, refreshTtlSec: 604800 },
    admin: null,
    oidcProviders: [],
    subgraphUrls: {},
    invitationExpiresDays: 7,
  });
  expect(Object.isFrozen(c)).toBe(true);
});

test('values are parsed and normalised', () => {
  const c = load({
    PORT: '8080',
    DATA_DIR: '/var/lib/tenantry',
    DATABASE_URL: 'postgresql://u@db:5432/p',
    REDIS_URL: 'redis://r:6379',
    PLATFORM_HOSTS: ' API.example.com , localhost ',
    TRUST_PROXY: 'true',
    RATE_LIMIT_STANDARD: '1000/hour',
    RATE_LIMIT_AUTH: 'off',
    RATE_LIMIT_WRITE: '5/10s',
    JWT_ACCESS_TTL: '5m',
    JWT_REFRESH_TTL: '2d',
    ADMIN_USERNAME: 'root',
    ADMIN_PASSWORD: 'pw-long-enough',
    OIDC_PROVIDERS: JSON.stringify([{ name: 'corp', issuer: 'http://idp', client_id: 'c', client_secret: 's' }]),
    SUBGRAPH_DATA_URL: 'http://data:4100/graphql',
  });
  expect(c.platformHosts).toEqual(['api.example.com', 'localhost']);
  expect(c.rateLimits).toEqual({ standard: { points: 1000, durationSec: 3600 }, auth: 'off', write: { points: 5, durationSec: 10 } });
  expect(c.jwt).toMatchObject({ accessTtlSec: 300, refreshTtlSec: 172800 });
  expect(c.admin).toEqual({ username: 'root', password: 'pw-long-enough', email: '' });
  expect(c.oidcProviders).toEqual([{ name: 'corp', issuer: 'http://idp', clientId: 'c', clientSecret: 's', scopes: undefined }]);
  expect(c.subgraphUrls).toEqual({ data: 'http://data:4100/graphql' });
  expect(c.trustProxy).toBe(true);
});

test.each([
  ['PORT', '70000'],
  ['PORT', '-1'],
  ['DATABASE_URL', 'not a url'],
  ['REDIS_URL', 'http://r'],
  ['TRUST_PROXY', 'perhaps'],
  ['RATE_LIMIT_WRITE', '30 per minute'],
  ['RATE_LIMIT_AUTH', '0/hour'],
  ['JWT_ACCESS_TTL', 'soon'],
  ['JWT_SECRET', 'short'],
  ['JWT_PRIVATE_KEY', 'only-one-half'],
  ['ADMIN_PASSWORD', 'no-username'],
  ['OIDC_PROVIDERS', '{"name":"x"}'],
  ['OIDC_PROVIDERS', '[{"name":"x"}]'],
  ['SUBGRAPH_TENANCY_URL', 'ftp://x'],
  ['SECRETS_MASTER_KEY', 'dG9vIHNob3J0'],
  ['SECRETS_PREVIOUS_MASTER_KEYS', `${Buffer.alloc(32, 1).toString('base64')},dG9vIHNob3J0`],
  ['LOG_LEVEL', 'loud'],
  ['INVITATION_EXPIRES_DAYS', '0'],
])('%s=%s is refused with a message naming the variable', (variable, value) => {
  const run = () => load({ [variable]: value });
  expect(run).toThrow(ConfigError);
  const expected = variable === 'ADMIN_PASSWORD' ? 'ADMIN_USERNAME' : variable === 'JWT_PRIVATE_KEY' ? 'JWT_PUBLIC_KEY' : variable;
  expect(run).toThrow(new RegExp(`^${expected}`));
});

test('duration and rate-limit parsers', () => {
  expect(parseDuration('X', '90', 1)).toBe(90);
  expect(parseDuration('X', '12h', 1)).toBe(43200);
  expect(parseDuration('X', undefined, 7)).toBe(7);
  expect(parseRateLimit('X', '100/minute')).toEqual({ points: 100, durationSec: 60 });
  expect(parseRateLimit('X', '3/2h')).toEqual({ points: 3, durationSec: 7200 });
  expect(parseRateLimit('X', 'OFF')).toBe('off');
});

test('SECRETS_PREVIOUS_MASTER_KEYS is a comma list of base64 32-byte keys', () => {
  const a = Buffer.alloc(32, 1).toString('base64');
  const b = Buffer.alloc(32, 2).toString('base64');
  expect(load({ SECRETS_PREVIOUS_MASTER_KEYS: ` ${a} , ${b},` }).secretsPreviousMasterKeys).toEqual([a, b]);
  expect(load({}).secretsPreviousMasterKeys).toEqual([]);
});
