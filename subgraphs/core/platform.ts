// Boots the platform's shared resources once: database (embedded or external), migrations,
// Prisma, Redis, keys, the modules (permission catalogue, hooks, seeds) and the per-process
// caches with their cross-process invalidation. Everything else receives the Platform object.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AuthCaches } from './auth-cache.js';
import type { Platform } from './context.js';
import type { Config } from './config.js';
import { createPool, createPrisma } from './db.js';
import { trackRequestConnections } from './request-db.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded-postgres.js';
import { GrantCache } from './grant-cache.js';
import { Hooks } from './hooks.js';
import { InvalidationBus } from './invalidation.js';
import { loadPlatformKeys } from './keys.js';
import { migrate } from './migrate.js';
import type { ModuleManifest } from './module.js';
import { PermissionCatalogue } from './permissions.js';
import { TenantCache } from './tenant-cache.js';

export type { Platform };

export interface PlatformOptions {
  /** The modules to run; every entry point passes subgraphs/modules.ts's list. */
  modules?: readonly ModuleManifest[];
  /** Run the modules' seeds (permissions, first superuser) after the migrations. */
  seed?: boolean;
}

const EMBEDDED_DB = 'platform';

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (e) {
    if ((e as { code?: string }).code !== '42P04') throw e; // created by a concurrent start
  } finally {
    await client.end();
  }
}

/**
 * Redis is optional at run time (DECISIONS §1, issue 10 item 7): unreachable at start is a
 * warning, and it keeps reconnecting in the background. Commands never wait for a connection
 * (no offline queue) and time out quickly, so while Redis is down a request pays at most a few
 * milliseconds before the rate limiter's in-memory insurance answers instead.
 */
async function connectRedis(url: string, log: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5000),
  });
  let lastWarning = 0;
  redis.on('error', (e) => {
    // ioredis reports every failed reconnection: one line a minute is enough.
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    log.warn({ err: e.message }, 'redis unavailable; rate limits counted in this process until it answers');
  });
  redis.on('ready', () => log.info('redis connected'));
  // With a retry strategy, connect() may keep trying rather than fail: wait a bounded time,
  // then go on while it keeps reconnecting in the background.
  const connecting = redis.connect();
  connecting.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      connecting,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 3 s')), 3000);
      }),
    ]);
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'REDIS_URL does not answer at start; using in-memory rate limits until it does');
  } finally {
    clearTimeout(timer);
  }
  return redis;
}

export async function startPlatform(config: Readonly<Config>, log: Logger, opts: PlatformOptions = {}): Promise<Platform> {
  const modules = opts.modules ?? [];
  fs.mkdirSync(config.dataDir, { recursive: true });
  let embedded: EmbeddedServer | null = null;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const dir = path.join(config.dataDir, 'postgres');
    embedded = await startEmbeddedPostgres(dir, (line) => log.debug({ component: 'postgres' }, line.trim()));
    await ensureDatabase(embedded.url('postgres'), EMBEDDED_DB);
    databaseUrl = embedded.url(EMBEDDED_DB);
    const how = { started: 'started', adopted: 'reused (left running by a stopped process)', shared: 'shared with a running process' };
    log.info({ port: embedded.port, dir }, `embedded PostgreSQL ${how[embedded.origin]}`);
  }
  const pool = createPool(databaseUrl, 20, config.dbConnectTimeoutMs);
  // A request's connections are cancelled when its client leaves or its deadline passes (request-db.ts).
  trackRequestConnections(pool);
  // 57P01: the server is shutting down (our own stop, or embedded-postgres's exit hook).
  pool.on('error', (e) => {
    if ((e as { code?: string }).code === '57P01') log.debug({ err: e.message }, 'database connection closed by server shutdown');
    else log.error({ err: e.message }, 'idle database connection failed');
  });
  let redis: Redis | null = null;
  const invalidation = new InvalidationBus(databaseUrl, log);
  try {
    const applied = await migrate(pool);
    if (applied.length) log.info({ applied }, 'platform migrations applied');
    const prisma = createPrisma(pool);
    const keys = loadPlatformKeys(config, log);
    if (config.redisUrl) redis = await connectRedis(config.redisUrl, log);
    const platform: Platform = {
      config,
      log,
      pool,
      prisma,
      redis,
      keys,
      databaseUrl,
      permissions: new PermissionCatalogue(modules.flatMap((m) => m.permissions ?? [])),
      hooks: new Hooks(),
      invalidation,
      tenants: new TenantCache(pool),
      auth: new AuthCaches(),
      grants: new GrantCache(),
      async close() {
        await platform.hooks.runBlocking(null, 'platformClosing').catch((e: Error) => log.warn({ err: e.message }, 'closing hook failed'));
        await invalidation.close();
        await prisma.$disconnect().catch(() => undefined);
        await pool.end().catch(() => undefined);
        if (redis) await redis.quit().catch(() => redis?.disconnect());
        redis?.disconnect();
        if (embedded) await embedded.stop();
      },
    };
    invalidation.on((change) => {
      platform.tenants.apply(change);
      platform.auth.apply(change);
      platform.grants.apply(change);
    });
    await invalidation.start();
    for (const m of modules) m.register?.(platform);
    if (opts.seed) for (const m of modules) await m.seed?.(platform);
    return platform;
  } catch (e) {
    await invalidation.close();
    await pool.end().catch(() => undefined);
    redis?.disconnect();
    if (embedded) await embedded.stop();
    throw e;
  }
}
