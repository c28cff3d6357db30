// Recently granted access, kept a short time per process (bounded staleness, as the auth
// cache): hot reads (a datatable record, a secret by key) then skip their permission queries.
// Only grants are kept, never refusals, so a new grant takes effect at once; a revocation
// reaches a process within GRANT_TTL_MS. One store per platform and area; `forget` clears an
// area at once (e.g. after this process changes a table schema).
import type { RequestContext } from './context.js';
import type { Platform } from './platform.js';

export const GRANT_TTL_MS = 2_000;
const MAX_GRANTS = 10_000;
const stores = new WeakMap<Platform, Map<string, Map<string, { value: unknown; until: number }>>>();

/** Who the caller is, for cache keys: a user (with operator flags) or an API key with its app and site. */
export function principalKey(ctx: RequestContext): string {
  const p = ctx.principal;
  if (p.kind === 'user') return `u${p.userId}${p.isStaff ? 's' : ''}${p.isSuperuser ? 'S' : ''}`;
  if (p.kind === 'api_key') return `k${p.keyId}:${p.appId}:${p.siteId}`;
  return 'anon';
}

function storeOf(platform: Platform, area: string) {
  let areas = stores.get(platform);
  if (!areas) stores.set(platform, (areas = new Map()));
  let store = areas.get(area);
  if (!store) areas.set(area, (store = new Map()));
  return store;
}

/** What was remembered for the caller under `key` within the last GRANT_TTL_MS, else undefined. */
export function recentGrant<T>(ctx: RequestContext, area: string, key: string): T | undefined {
  if (ctx.principal.kind === 'anonymous') return undefined;
  const hit = storeOf(ctx.platform, area).get(`${principalKey(ctx)}\u0000${key}`);
  return hit && hit.until > Date.now() ? (hit.value as T) : undefined;
}

export function rememberGrant(ctx: RequestContext, area: string, key: string, value: unknown): void {
  if (ctx.principal.kind === 'anonymous') return;
  const store = storeOf(ctx.platform, area);
  if (store.size >= MAX_GRANTS) store.clear();
  store.set(`${principalKey(ctx)}\u0000${key}`, { value, until: Date.now() + GRANT_TTL_MS });
}

export function forgetGrants(platform: Platform, area: string): void {
  stores.get(platform)?.get(area)?.clear();
}
