// Boots the platform's shared resources once: database (embedded or external), migrations,
// Prisma, Redis, keys, seed data. Everything else receives the resulting Platform object.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createPool, createPrisma, type Db } from './db.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded-postgres.js';
import { loadKeyRing, type KeyRing } from './keys.js';
import { migrate } from './migrate.js';
import { TenantCache } from './tenant-cache.js';

export interface Platform {
  config: Readonly<Config>;
  log: Logger;
  pool: pg.Pool;
  prisma: Db;
  redis: Redis | null;
  keys: KeyRing;
  tenants: TenantCache;
  databaseUrl: string;
  close(): Promise<void>;
}

export interface BootHooks {
  /** Seeds and first-run work that belong to modules (permissions, first superuser, ...). */
  afterMigrate?: (platform: Platform) => Promise<void>;
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

export async function startPlatform(config: Readonly<Config>, log: Logger, hooks: BootHooks = {}): Promise<Platform> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  let embedded: EmbeddedServer | null = null;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const dir = path.join(config.dataDir, 'postgres');
    embedded = await startEmbeddedPostgres(dir, (line) => log.debug({ component: 'postgres' }, line.trim()));
    await ensureDatabase(embedded.url('postgres'), EMBEDDED_DB);
    databaseUrl = embedded.url(EMBEDDED_DB);
    log.info({ port: embedded.port, dir }, 'embedded PostgreSQL started');
  }
  const pool = createPool(databaseUrl);
  // 57P01: the server is shutting down (our own stop, or embedded-postgres's exit hook).
  pool.on('error', (e) => {
    if ((e as { code?: string }).code === '57P01') log.debug({ err: e.message }, 'database connection closed by server shutdown');
    else log.error({ err: e.message }, 'idle database connection failed');
  });
  let redis: Redis | null = null;
  try {
    const applied = await migrate(pool);
    if (applied.length) log.info({ applied }, 'platform migrations applied');
    const prisma = createPrisma(pool);
    const keys = loadKeyRing(config, log);
    if (config.redisUrl) {
      redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: true });
      redis.on('error', (e) => log.warn({ err: e.message }, 'redis connection error'));
      await redis.connect();
    }
    const platform: Platform = {
      config,
      log,
      pool,
      prisma,
      redis,
      keys,
      databaseUrl,
      tenants: new TenantCache(pool),
      async close() {
        await prisma.$disconnect().catch(() => undefined);
        await pool.end().catch(() => undefined);
        if (redis) await redis.quit().catch(() => undefined);
        if (embedded) await embedded.stop();
      },
    };
    await hooks.afterMigrate?.(platform);
    return platform;
  } catch (e) {
    await pool.end().catch(() => undefined);
    redis?.disconnect();
    if (embedded) await embedded.stop();
    throw e;
  }
}
