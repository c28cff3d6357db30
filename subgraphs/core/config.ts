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
  /** AUTH_PURGE_INTERVAL_MS: how often expired refresh tokens, sessions and revocations are deleted (0: never). */
  authPurgeIntervalMs: number;
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
  // --- hardening (issue 10): input limits at the edge, database connections ---
  /** Deepest nesting of arrays/objects accepted in a JSON body (JSON_MAX_DEPTH). */
  jsonMaxDepth: number;
  /** How long a request waits for a database connection before 503 (DB_CONNECT_TIMEOUT_MS). */
  dbConnectTimeoutMs: number;
  /** A request's database work is cancelled after this long (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  // --- data module (relationships) ---
  /** Relationship hops for populate, related filters and related sorting (seed 3 Limits). */
  dataMaxPopulateDepth: number;
  /** Distinct related paths in the filters of one request. */
  dataMaxFilterTraversals: number;
  // --- events module (docs/events.md) ---
  events: {
    /** EVENTS_WORKER: `inline` runs the queue worker in this process; `off` leaves it to `npm run start:worker`. */
    worker: 'inline' | 'off';
    /** EVENTS_WORKER_CONCURRENCY: jobs one worker runs at once. */
    workerConcurrency: number;
    /** EVENTS_PRE_DEADLINE_MS: cap of the one deadline PRE_* subscribers share. */
    preDeadlineMs: number;
    /** EVENTS_WEBHOOK_ALLOW_HOSTS: hosts or addresses a proxy function may call although private or loopback. */
    webhookAllowHosts: string[];
    /** EVENTS_RELAY_INTERVAL_MS: how often the outbox and stale pending invocations are swept. */
    relayIntervalMs: number;
    /** EVENTS_RELAY_ON_COMMIT: relay the outbox right after each commit (else only on the sweeps). */
    relayOnCommit: boolean;
  };
  // analytics module (DECISIONS §10)
  /** Statement time-out of every analytics engine (ANALYTICS_TIMEOUT_MS, default 30 s). */
  analyticsTimeoutMs: number;
  /** Most rows an analytics execution returns (ANALYTICS_MAX_ROWS, default 10,000). */
  analyticsMaxRows: number;
  /** Executions one site runs at once in a process (ANALYTICS_MAX_CONCURRENT, default 4); more wait. */
  analyticsMaxConcurrent: number;
  // --- storage module (DECISIONS §1): S3 object store and Microsoft Graph document library ---
  storage: StorageConfig;
  // --- operations (docs/operations.md) ---
  /**
   * METRICS_TOKEN: the Bearer token that reads GET /metrics from anywhere. Unset: /metrics
   * answers only a direct client on the loopback interface (404 to everyone else).
   */
  metricsToken: string | null;
}

export interface StorageConfig {
  /** S3 API for `object_store` buckets; null: local files under DATA_DIR/objects. */
  s3: {
    endpoint: string | null;
    region: string;
    accessKeyId: string;
    secretAccessKey: string;
    bucketPrefix: string;
    forcePathStyle: boolean;
  } | null;
  /** Microsoft Graph for `document_library` buckets; null: such buckets cannot be created. */
  graph: { tenantId: string; clientId: string; clientSecret: string; baseUrl: string; authorityUrl: string; siteId: string } | null;
  /** STORAGE_CLEANUP_INTERVAL_MS: the cleanup pass runs at start and this often; 0 = never (docs/storage.md). */
  cleanupIntervalMs: number;
  /** STORAGE_ORPHAN_GRACE_MS: content without a row is removed once older than this. */
  orphanGraceMs: number;
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

// events module: where the queue worker runs.
function eventsWorker(env: Env): 'inline' | 'off' {
  const v = str(env, 'EVENTS_WORKER', 'inline').toLowerCase();
  if (v !== 'inline' && v !== 'off') throw new ConfigError('EVENTS_WORKER', `expected "inline" or "off", got "${v}"`);
  return v;
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

// --- storage module ---
function storageConfig(env: Env): StorageConfig {
  const s3Vars = ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_BUCKET_PREFIX'];
  const anyS3 = s3Vars.some((v) => optional(env, v) !== null);
  const need = (name: string) => {
    const v = optional(env, name);
    if (v === null) throw new ConfigError(name, 'required when any S3_* variable is set');
    return v;
  };
  const s3 = anyS3
    ? {
        endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
        region: str(env, 'S3_REGION', 'us-east-1'),
        accessKeyId: need('S3_ACCESS_KEY_ID'),
        secretAccessKey: need('S3_SECRET_ACCESS_KEY'),
        bucketPrefix: str(env, 'S3_BUCKET_PREFIX', 'tenantry'),
        forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
      }
    : null;
  const graphVars = ['GRAPH_TENANT_ID', 'GRAPH_CLIENT_ID', 'GRAPH_CLIENT_SECRET'];
  const anyGraph = graphVars.some((v) => optional(env, v) !== null);
  const needG = (name: string) => {
    const v = optional(env, name);
    if (v === null) throw new ConfigError(name, 'required when any GRAPH_* variable is set');
    return v;
  };
  const graph = anyGraph
    ? {
        tenantId: needG('GRAPH_TENANT_ID'),
        clientId: needG('GRAPH_CLIENT_ID'),
        clientSecret: needG('GRAPH_CLIENT_SECRET'),
        baseUrl: (url(env, 'GRAPH_BASE_URL', ['http:', 'https:']) ?? 'https://graph.microsoft.com/v1.0').replace(/\/+$/, ''),
        authorityUrl: (url(env, 'GRAPH_AUTHORITY_URL', ['http:', 'https:']) ?? 'https://login.microsoftonline.com').replace(/\/+$/, ''),
        siteId: str(env, 'GRAPH_SITE_ID', 'root'),
      }
    : null;
  return {
    s3,
    graph,
    cleanupIntervalMs: int(env, 'STORAGE_CLEANUP_INTERVAL_MS', 5 * 60_000, 0, 86_400_000),
    orphanGraceMs: int(env, 'STORAGE_ORPHAN_GRACE_MS', 60 * 60_000, 0, 7 * 86_400_000),
  };
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
    authPurgeIntervalMs: int(env, 'AUTH_PURGE_INTERVAL_MS', 3_600_000, 0, 86_400_000),
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
    storage: storageConfig(env),
    // analytics module
    analyticsTimeoutMs: int(env, 'ANALYTICS_TIMEOUT_MS', 30_000, 100, 3_600_000),
    analyticsMaxRows: int(env, 'ANALYTICS_MAX_ROWS', 10_000, 1, 1_000_000),
    analyticsMaxConcurrent: int(env, 'ANALYTICS_MAX_CONCURRENT', 4, 1, 64),
    // --- events module ---
    events: {
      worker: eventsWorker(env),
      workerConcurrency: int(env, 'EVENTS_WORKER_CONCURRENCY', 4, 1, 64),
      preDeadlineMs: int(env, 'EVENTS_PRE_DEADLINE_MS', 10_000, 100, 300_000),
      webhookAllowHosts: str(env, 'EVENTS_WEBHOOK_ALLOW_HOSTS', '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
      relayIntervalMs: int(env, 'EVENTS_RELAY_INTERVAL_MS', 5_000, 100, 600_000),
      relayOnCommit: bool(env, 'EVENTS_RELAY_ON_COMMIT', true),
    },
    // data module (relationships)
    dataMaxPopulateDepth: int(env, 'DATA_SERVICE_MAX_POPULATE_DEPTH', 3, 1, 5),
    dataMaxFilterTraversals: int(env, 'DATA_SERVICE_MAX_FILTER_TRAVERSALS', 5, 0, 20),
    // --- hardening (issue 10) ---
    jsonMaxDepth: int(env, 'JSON_MAX_DEPTH', 64, 2, 1000),
    dbConnectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 60_000, 100, 3_600_000),
    // graphql (gateway/graphql/limits.ts, docs/graphql.md "Limits")
    graphqlLimits: {
      maxAliases: int(env, 'GRAPHQL_MAX_ALIASES', 30, 0, 100_000),
      maxDepth: int(env, 'GRAPHQL_MAX_DEPTH', 12, 1, 1000),
      maxTokens: int(env, 'GRAPHQL_MAX_TOKENS', 5000, 100, 1_000_000),
      maxCost: int(env, 'GRAPHQL_MAX_COST', 20_000, 1, 100_000_000),
    },
    // operations (docs/operations.md)
    metricsToken: optional(env, 'METRICS_TOKEN'),
  };
  if (config.metricsToken !== null && (config.metricsToken.length < 16 || /\s/.test(config.metricsToken))) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters without spaces');
  }
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    throw new ConfigError('LOG_LEVEL', `unknown level "${config.logLevel}"`);
  }
  return Object.freeze(config);
}
