// Browser sessions (DECISIONS §3): an opaque `sessionid` cookie whose SHA-256 alone is
// stored, and a `csrftoken` that unsafe requests must echo in `X-CSRFToken`.
import crypto from 'node:crypto';
import type { Platform } from '../core/platform.js';
import type { AuthUser, SessionRecord } from '../core/auth-cache.js';
import { authRepository } from './auth.repository.js';

export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'csrftoken';
export const CSRF_HEADER = 'x-csrftoken';

export const sha256 = (value: string): string => crypto.createHash('sha256').update(value).digest('hex');

export interface NewSession {
  sessionId: string;
  csrfToken: string;
  maxAgeSec: number;
}

export async function createSession(platform: Platform, user: AuthUser): Promise<NewSession> {
  const sessionId = crypto.randomBytes(32).toString('base64url');
  const csrfToken = crypto.randomBytes(32).toString('base64url');
  const maxAgeSec = platform.config.sessionTtlSec;
  await authRepository.insertSession(platform.pool, sha256(sessionId), user.id, csrfToken, new Date(Date.now() + maxAgeSec * 1000));
  return { sessionId, csrfToken, maxAgeSec };
}

/** The live session behind a cookie value (cached: platform.auth), or null. */
export async function findSession(platform: Platform, sessionId: string): Promise<SessionRecord | null> {
  const hash = sha256(sessionId);
  const session = await platform.auth.sessions.get(hash, () => authRepository.findSession(platform.pool, hash));
  return session && session.expiresAt.getTime() > Date.now() ? session : null;
}

export async function endSession(platform: Platform, sessionId: string): Promise<void> {
  const hash = sha256(sessionId);
  await authRepository.deleteSession(platform.pool, hash);
  platform.invalidation.publish({ kind: 'session', hash });
}

/** Constant-time comparison of the CSRF header with the session's token. */
export function csrfMatches(session: SessionRecord, header: unknown): boolean {
  if (typeof header !== 'string') return false;
  const a = Buffer.from(header);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
