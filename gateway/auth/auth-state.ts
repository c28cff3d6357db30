// Per-process, per-platform authentication caches. They keep the hot path (a request with
// a bearer token) free of database queries, at the price of a bounded delay: a user who is
// deactivated or deleted, a revoked API key, a deleted session or a revoked access token
// stops working at most AUTH_CACHE_TTL_MS later in every process (at once in the process
// that made the change, which calls the invalidate functions below).
import type { Platform } from '../../subgraphs/core/platform.js';
import type { ApiKeyRecord, SessionRecord } from './auth.repository.js';
import { tokenRepository, type AuthUser } from './token.repository.js';
import { TtlCache } from './ttl-cache.js';

export const AUTH_CACHE_TTL_MS = 15_000;

/** jtis of access tokens revoked before their expiry, reloaded whole when stale. */
class RevokedAccessSet {
  private jtis = new Set<string>();
  private loadedAt = -Infinity;
  private loading: Promise<void> | null = null;

  constructor(private readonly platform: Platform) {}

  async has(jti: string): Promise<boolean> {
    if (Date.now() - this.loadedAt >= AUTH_CACHE_TTL_MS) await this.reload();
    return this.jtis.has(jti);
  }

  add(jti: string): void {
    this.jtis.add(jti);
  }

  private reload(): Promise<void> {
    this.loading ??= tokenRepository
      .revokedAccessJtis(this.platform.pool)
      .then((list) => {
        this.jtis = new Set(list);
        this.loadedAt = Date.now();
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }
}

export interface AuthState {
  /** user uuid → active user, or null when inactive, deleted or unknown. */
  users: TtlCache<AuthUser | null>;
  /** SHA-256 of a session id → live session. */
  sessions: TtlCache<SessionRecord | null>;
  /** SHA-256 of an API key → usable key. */
  apiKeys: TtlCache<ApiKeyRecord | null>;
  revokedAccess: RevokedAccessSet;
  /** When each API key's last_used_at was last written by this process. */
  apiKeyTouched: Map<number, number>;
}

const states = new WeakMap<Platform, AuthState>();

export function authState(platform: Platform): AuthState {
  let s = states.get(platform);
  if (!s) {
    s = {
      users: new TtlCache(AUTH_CACHE_TTL_MS),
      sessions: new TtlCache(AUTH_CACHE_TTL_MS),
      apiKeys: new TtlCache(AUTH_CACHE_TTL_MS),
      revokedAccess: new RevokedAccessSet(platform),
      apiKeyTouched: new Map(),
    };
    states.set(platform, s);
  }
  return s;
}

/**
 * For code that deactivates, deletes or demotes users: call with the user's uuid so this
 * process refuses the user at once (others follow within AUTH_CACHE_TTL_MS). Without a uuid,
 * forgets every cached user and session.
 */
export function invalidateUserAuth(platform: Platform, uuid?: string): void {
  const s = authState(platform);
  if (uuid === undefined) s.users.clear();
  else s.users.delete(uuid);
  s.sessions.clear();
}

/** For code that revokes API keys or deactivates apps. */
export function invalidateApiKeys(platform: Platform): void {
  authState(platform).apiKeys.clear();
}
