// Recently granted access, kept a short time per process: hot reads (a datatable record, a
// secret by key) then skip their permission queries. Only grants are kept, never refusals, so
// a new grant takes effect at once. Every change of rights (membership, group, grant, API key,
// schema) publishes a `grants` invalidation, which clears the store at once here and within a
// second in every other process; GRANT_TTL_MS bounds staleness only while a process's
// invalidation connection is down. A member of the platform (platform.grants).
import type { Principal } from './identity.js';
import type { Invalidation } from './invalidation.js';

export const GRANT_TTL_MS = 2_000;
const MAX_GRANTS = 10_000;

/** Who the caller is, for cache keys: a user (with operator flags) or an API key with its app and site. */
export function principalKey(ctx: Caller): string {
  const p = ctx.principal;
  if (p.kind === 'user') return `u${p.userId}${p.isStaff ? 's' : ''}${p.isSuperuser ? 'S' : ''}`;
  if (p.kind === 'api_key') return `k${p.keyId}:${p.appId}:${p.siteId}`;
  return 'anon';
}

/** Whoever asks: a request context, or anything else that carries the principal. */
export interface Caller {
  principal: Principal;
}

export class GrantCache {
  private readonly areas = new Map<string, Map<string, { value: unknown; until: number }>>();

  private store(area: string) {
    let store = this.areas.get(area);
    if (!store) this.areas.set(area, (store = new Map()));
    return store;
  }

  /** What was remembered for the caller under `key` within the last GRANT_TTL_MS, else undefined. */
  recent<T>(ctx: Caller, area: string, key: string): T | undefined {
    if (ctx.principal.kind === 'anonymous') return undefined;
    const hit = this.store(area).get(`${principalKey(ctx)}\u0000${key}`);
    return hit && hit.until > Date.now() ? (hit.value as T) : undefined;
  }

  remember(ctx: Caller, area: string, key: string, value: unknown): void {
    if (ctx.principal.kind === 'anonymous') return;
    const store = this.store(area);
    if (store.size >= MAX_GRANTS) store.clear();
    store.set(`${principalKey(ctx)}\u0000${key}`, { value, until: Date.now() + GRANT_TTL_MS });
  }

  /** Forgets one area, or everything. */
  forget(area?: string): void {
    if (area === undefined) this.areas.clear();
    else this.areas.get(area)?.clear();
  }

  apply(change: Invalidation): void {
    if (change.kind === 'grants') this.forget(change.area);
    else if (change.kind === 'all' || change.kind === 'user' || change.kind === 'apiKeys') this.forget();
  }
}
