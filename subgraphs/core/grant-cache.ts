// Recently granted permissions, kept a short time per process (bounded staleness, as the auth
// cache): hot reads (a datatable record, a secret by key) then skip the permission predicate.
// Only grants are kept, never refusals, so a new grant takes effect at once; a revocation
// reaches a process within GRANT_TTL_MS.
import type { RequestContext } from './context.js';
import type { Platform } from './platform.js';

export const GRANT_TTL_MS = 2_000;
const MAX_GRANTS = 10_000;
const caches = new WeakMap<Platform, Map<string, number>>();

/** Who the caller is, for cache keys: a user (with operator flags) or an API key with its app and site. */
export function principalKey(ctx: RequestContext): string {
  const p = ctx.principal;
  if (p.kind === 'user') return `u${p.userId}${p.isStaff ? 's' : ''}${p.isSuperuser ? 'S' : ''}`;
  if (p.kind === 'api_key') return `k${p.keyId}:${p.appId}:${p.siteId}`;
  return 'anon';
}

function cacheOf(platform: Platform): Map<string, number> {
  let m = caches.get(platform);
  if (!m) caches.set(platform, (m = new Map()));
  return m;
}

const keyOf = (ctx: RequestContext, permission: string, siteId: number) => `${principalKey(ctx)}\u0000${permission}\u0000${siteId}`;

/** True when `permission` on site `siteId` was granted to this caller within the last GRANT_TTL_MS. */
export function recentlyGranted(ctx: RequestContext, permission: string, siteId: number): boolean {
  if (ctx.principal.kind === 'anonymous') return false;
  const until = cacheOf(ctx.platform).get(keyOf(ctx, permission, siteId));
  return until !== undefined && until > Date.now();
}

export function rememberGrant(ctx: RequestContext, permission: string, siteId: number): void {
  if (ctx.principal.kind === 'anonymous') return;
  const cache = cacheOf(ctx.platform);
  if (cache.size >= MAX_GRANTS) cache.clear();
  cache.set(keyOf(ctx, permission, siteId), Date.now() + GRANT_TTL_MS);
}
