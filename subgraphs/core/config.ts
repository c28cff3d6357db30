// Configuration is parsed and validated once, at boot, into a frozen object that is passed
// down. Nothing else in the platform reads process.env.
import path from 'node:path';

export type RateLimitSetting = { points: number; durationSec: number } | 'off';

export interface OidcProviderConfig {
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes?: string;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  platformHosts: string[];
  siteBaseDomain: string;
  trustProxy: boolean;
  rateLimits: { standard: RateLimitSetting; auth: RateLimitSetting; write: RateLimitSetting };
  jwt: {
    privateKey: string | null;
    publicKey: string | null;
    secret: string | null;
    accessTtlSec: number;
    refreshTtlSec: number;
  };
  sessionTtlSec: number;
  admin: { username: string; password: string; email: string } | null;
  oidcProviders: OidcProviderConfig[];
  subgraphUrls: Record<string, string>;
  subgraphSecret: string | null;
  bodyLimitBytes: number;
  logLevel: string;
  invitationExpiresDays: number;
  smtpUrl: string | null;
  secretsMasterKey: string | null;
  /** Former master keys (base64), still accepted to unwrap data keys until `rotate-keys` re-wraps them. */
  secretsPreviousMasterKeys: string[];
  nodeEnv: string;
  // --- graphql (gateway/graphql/limits.ts): per-operation limits, checked before execution ---
  graphqlLimits: { maxAliases: number; maxDepth: number; maxTokens: number; maxCost: number };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const DURATIONS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86400 };

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function optional(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `expected a boolean (1/0, true/false), got "${raw}"`);
}

/** `100/minute`, `20/hour`, `5/10s` style limits, or `off`. */
export function parseRateLimit(name: string, raw: string): RateLimitSetting {
  const v = raw.trim().toLowerCase();
  if (v === 'off') return 'off';
  const m = /^(\d+)\s*\/\s*(\d+)?\s*(s|sec|second|m|min|minute|h|hour|d|day)s?$/.exec(v);
  if (!m) throw new ConfigError(name, `expected "<count>/<second|minute|hour|day>" or "off", got "${raw}"`);
  const unit = { s: 'second', sec: 'second', m: 'minute', min: 'minute', h: 'hour', d: 'day' }[m[3]] ?? m[3];
  const points = Number(m[1]);
  if (points < 1) throw new ConfigError(name, 'the count must be at least 1');
  return { points, durationSec: (m[2] ? Number(m[2]) : 1) * DURATIONS[unit] };
}

/** `15m`, `7d`, `3600` (seconds). */
export function parseDuration(name: string, raw: string | undefined, fallbackSec: number): number {
  if (raw === undefined || raw === '') return fallbackSec;
  const m = /^(\d+)\s*(s|m|h|d)?$/.exec(raw.trim().toLowerCase());
  if (!m) throw new ConfigError(name, `expected a duration such as 900, 15m, 12h or 7d, got "${raw}"`);
  const mult = { s: 1, m: 60, h: 3600, d: 86400 }[m[2] ?? 's'] as number;
  const sec = Number(m[1]) * mult;
  if (sec < 1) throw new ConfigError(name, 'must be at least one second');
  return sec;
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = optional(env, name);
  if (raw === null) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

function parseOidc(env: Env): OidcProviderConfig[] {
  const raw = optional(env, 'OIDC_PROVIDERS');
  if (raw === null) return [];
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    throw new ConfigError('OIDC_PROVIDERS', 'is not valid JSON');
  }
  if (!Array.isArray(list)) throw new ConfigError('OIDC_PROVIDERS', 'must be a JSON array');
  return list.map((p, i) => {
    const o = p as Record<string, unknown>;
    for (const key of ['name', 'issuer', 'client_id', 'client_secret']) {
      if (typeof o[key] !== 'string' || o[key] === '') {
        throw new ConfigError('OIDC_PROVIDERS', `entry ${i} needs a string "${key}"`);
      }
    }
    if (!/^[a-z0-9_-]+$/i.test(o.name as string)) {
      throw new ConfigError('OIDC_PROVIDERS', `entry ${i}: name may hold letters, digits, "-" and "_" only`);
    }
    return {
      name: o.name as string,
      issuer: o.issuer as string,
      clientId: o.client_id as string,
      clientSecret: o.client_secret as string,
      scopes: typeof o.scopes === 'string' ? o.scopes : undefined,
    };
  });
}

/**
 * `SUBGRAPH_<NAME>_URL` variables, by lower-case module name. Which names exist is the
 * modules' business: the gateway refuses a name no module has (naming the variable).
 */
function subgraphUrls(env: Env): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const variable of Object.keys(env)) {
    const m = /^SUBGRAPH_([A-Z0-9]+)_URL$/.exec(variable);
    if (!m) continue;
    const value = url(env, variable, ['http:', 'https:']);
    if (value) urls[m[1].toLowerCase()] = value;
  }
  return urls;
}

function admin(env: Env): Config['admin'] {
  const username = optional(env, 'ADMIN_USERNAME');
  const password = optional(env, 'ADMIN_PASSWORD');
  if (!username && !password) return null;
  if (!username) throw new ConfigError('ADMIN_USERNAME', 'is required when ADMIN_PASSWORD is set');
  if (!password) throw new ConfigError('ADMIN_PASSWORD', 'is required when ADMIN_USERNAME is set');
  return { username, password, email: str(env, 'ADMIN_EMAIL', '') };
}

function masterKey(env: Env): string | null {
  const raw = optional(env, 'SECRETS_MASTER_KEY');
  if (raw === null) return null;
  if (Buffer.from(raw, 'base64').length !== 32) {
    throw new ConfigError('SECRETS_MASTER_KEY', 'must be 32 bytes encoded in base64');
  }
  return raw;
}

function previousMasterKeys(env: Env): string[] {
  const raw = optional(env, 'SECRETS_PREVIOUS_MASTER_KEYS');
  if (raw === null) return [];
  const keys = raw
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  keys.forEach((k, i) => {
    if (Buffer.from(k, 'base64').length !== 32) {
      throw new ConfigError('SECRETS_PREVIOUS_MASTER_KEYS', `entry ${i} must be 32 bytes encoded in base64`);
    }
  });
  return keys;
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Readonly<Config> {
  const host = str(env, 'HOST', '127.0.0.1');
  const jwtPrivate = optional(env, 'JWT_PRIVATE_KEY');
  const jwtPublic = optional(env, 'JWT_PUBLIC_KEY');
  if (Boolean(jwtPrivate) !== Boolean(jwtPublic)) {
    throw new ConfigError(jwtPrivate ? 'JWT_PUBLIC_KEY' : 'JWT_PRIVATE_KEY', 'JWT_PRIVATE_KEY and JWT_PUBLIC_KEY go together');
  }
  const jwtSecret = optional(env, 'JWT_SECRET');
  if (jwtSecret !== null && jwtSecret.length < 32) throw new ConfigError('JWT_SECRET', 'must be at least 32 characters');
  const config: Config = {
    host,
    port: int(env, 'PORT', 4000, 0, 65535),
    dataDir: path.resolve(cwd, str(env, 'DATA_DIR', './.data')),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    platformHosts: str(env, 'PLATFORM_HOSTS', 'localhost,127.0.0.1')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    siteBaseDomain: str(env, 'SITE_BASE_DOMAIN', 'localhost').toLowerCase(),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    rateLimits: {
      standard: parseRateLimit('RATE_LIMIT_STANDARD', str(env, 'RATE_LIMIT_STANDARD', '100/minute')),
      auth: parseRateLimit('RATE_LIMIT_AUTH', str(env, 'RATE_LIMIT_AUTH', '20/hour')),
      write: parseRateLimit('RATE_LIMIT_WRITE', str(env, 'RATE_LIMIT_WRITE', '30/minute')),
    },
    jwt: {
      privateKey: jwtPrivate?.replace(/\\n/g, '\n') ?? null,
      publicKey: jwtPublic?.replace(/\\n/g, '\n') ?? null,
      secret: jwtSecret,
      accessTtlSec: parseDuration('JWT_ACCESS_TTL', env.JWT_ACCESS_TTL, 15 * 60),
      refreshTtlSec: parseDuration('JWT_REFRESH_TTL', env.JWT_REFRESH_TTL, 7 * 86400),
    },
    sessionTtlSec: parseDuration('SESSION_TTL', env.SESSION_TTL, 14 * 86400),
    admin: admin(env),
    oidcProviders: parseOidc(env),
    subgraphUrls: subgraphUrls(env),
    subgraphSecret: optional(env, 'SUBGRAPH_SECRET'),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024),
    logLevel: str(env, 'LOG_LEVEL', 'info'),
    invitationExpiresDays: int(env, 'INVITATION_EXPIRES_DAYS', 7, 1, 365),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    secretsMasterKey: masterKey(env),
    secretsPreviousMasterKeys: previousMasterKeys(env),
    nodeEnv: str(env, 'NODE_ENV', 'development'),
    // graphql (gateway/graphql/limits.ts, docs/graphql.md "Limits")
    graphqlLimits: {
      maxAliases: int(env, 'GRAPHQL_MAX_ALIASES', 30, 0, 100_000),
      maxDepth: int(env, 'GRAPHQL_MAX_DEPTH', 12, 1, 1000),
      maxTokens: int(env, 'GRAPHQL_MAX_TOKENS', 5000, 100, 1_000_000),
      maxCost: int(env, 'GRAPHQL_MAX_COST', 20_000, 1, 100_000_000),
    },
  };
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    throw new ConfigError('LOG_LEVEL', `unknown level "${config.logLevel}"`);
  }
  return Object.freeze(config);
}
