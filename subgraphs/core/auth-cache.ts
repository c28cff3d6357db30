// Per-process authentication caches, members of the platform. They keep the hot path (a
// request with a bearer token) free of database queries. Every change that affects them is
// published on the platform's invalidation bus, which clears them at once in the process that
// made the change and within a second everywhere else; AUTH_CACHE_TTL_MS bounds staleness
// only while a process's bus connection is down (docs/auth.md).
import type { PrincipalUserRow } from './identity.js';
import type { Invalidation } from './invalidation.js';
import { TtlCache } from './ttl-cache.js';

export const AUTH_CACHE_TTL_MS = 15_000;

/** The user fields tokens and principals are built from (never the password hash). */
export interface AuthUser {
  id: number;
  uuid: string;
  username: string;
  isStaff: boolean;
  isSuperuser: boolean;
  /** Tokens issued under another version are refused (users.token_version). */
  tokenVersion: number;
  row: PrincipalUserRow;
}

export interface SessionRecord {
  user: AuthUser;
  csrfToken: string;
  expiresAt: Date;
}

export interface ApiKeyRecord {
  keyId: number;
  appId: number;
  siteId: number;
}

/** jtis of access tokens revoked before their expiry, reloaded whole when stale. */
export class RevokedAccessSet {
  private jtis = new Set<string>();
  private loadedAt = -Infinity;
  private loading: Promise<void> | null = null;

  async has(jti: string, load: () => Promise<string[]>): Promise<boolean> {
    if (Date.now() - this.loadedAt >= AUTH_CACHE_TTL_MS) await this.reload(load);
    return this.jtis.has(jti);
  }

  add(jti: string): void {
    this.jtis.add(jti);
  }

  /** The next check reloads the whole set. */
  expire(): void {
    this.loadedAt = -Infinity;
  }

  private reload(load: () => Promise<string[]>): Promise<void> {
    this.loading ??= load()
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

export class AuthCaches {
  /** user uuid → active user, or null when inactive, deleted or unknown. */
  readonly users = new TtlCache<AuthUser | null>(AUTH_CACHE_TTL_MS);
  /** SHA-256 of a session id → live session. */
  readonly sessions = new TtlCache<SessionRecord | null>(AUTH_CACHE_TTL_MS);
  /** SHA-256 of an API key → usable key. */
  readonly apiKeys = new TtlCache<ApiKeyRecord | null>(AUTH_CACHE_TTL_MS);
  readonly revokedAccess = new RevokedAccessSet();
  /** When each API key's last_used_at was last written by this process. */
  readonly apiKeyTouched = new Map<number, number>();

  /** Applies one invalidation from the bus. */
  apply(change: Invalidation): void {
    switch (change.kind) {
      case 'user':
        if (change.uuid === undefined) this.users.clear();
        else this.users.delete(change.uuid);
        this.sessions.clear();
        break;
      case 'session':
        this.sessions.delete(change.hash);
        break;
      case 'apiKeys':
        this.apiKeys.clear();
        break;
      case 'accessToken':
        this.revokedAccess.add(change.jti);
        break;
      case 'all':
        this.users.clear();
        this.sessions.clear();
        this.apiKeys.clear();
        this.revokedAccess.expire();
        break;
    }
  }
}
