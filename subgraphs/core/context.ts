// The one request context object carried to every service, repository and job, and the
// Platform it reaches: the shared resources of the process (startPlatform in platform.ts).
import type pg from 'pg';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AuthCaches } from './auth-cache.js';
import type { Config } from './config.js';
import type { Db } from './db.js';
import type { GrantCache } from './grant-cache.js';
import type { Hooks } from './hooks.js';
import type { Principal, SiteRef } from './identity.js';
import type { InvalidationBus } from './invalidation.js';
import type { PlatformKeys } from './keys.js';
import type { PermissionCatalogue } from './permissions.js';
import type { TenantCache } from './tenant-cache.js';

export * from './identity.js';

export interface RequestContext {
  requestId: string;
  principal: Principal;
  /** The tenant resolved from the Host header; null on platform hosts. */
  site: SiteRef | null;
  /** The host the tenant was resolved from. */
  host: string;
  /** Absolute base URL of the request (scheme://host[:port]) for links in responses. */
  baseUrl: string;
  platform: Platform;
  log: Logger;
}

export interface Platform {
  config: Readonly<Config>;
  log: Logger;
  pool: pg.Pool;
  prisma: Db;
  redis: Redis | null;
  keys: PlatformKeys;
  databaseUrl: string;
  /** Every module's permissions. */
  permissions: PermissionCatalogue;
  /** Hook points between modules and the module APIs. */
  hooks: Hooks<RequestContext>;
  /** Cache invalidation for this process and every other one on the same database. */
  invalidation: InvalidationBus;
  tenants: TenantCache;
  auth: AuthCaches;
  grants: GrantCache;
  close(): Promise<void>;
}
