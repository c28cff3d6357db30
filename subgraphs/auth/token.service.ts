// JWT flows: obtain a pair, rotate it, verify, blacklist (DECISIONS §3).
import crypto from 'node:crypto';
import { withTransaction } from '../core/db.js';
import { errors } from '../core/errors.js';
import type { Platform } from '../core/platform.js';
import { signToken, tokenVersionOf, verifyToken, type TokenClaims } from './jwt.service.js';
import { pgExec, tokenRepository, type AuthUser, type Queryable } from './token.repository.js';

export interface TokenPair {
  access: string;
  refresh: string;
}

async function signPair(db: Queryable, platform: Platform, user: AuthUser, familyId: string): Promise<TokenPair> {
  const access = signToken(platform, user, 'access');
  const refresh = signToken(platform, user, 'refresh');
  await tokenRepository.insertRefresh(db, { jti: refresh.jti, familyId, userId: user.id, expiresAt: refresh.expiresAt });
  return { access: access.token, refresh: refresh.token };
}

/** A fresh pair that starts a new refresh-token family (one family per sign-in). */
export function issueTokenPair(platform: Platform, user: AuthUser): Promise<TokenPair> {
  return signPair(platform.pool, platform, user, crypto.randomUUID());
}

/**
 * Explains a refused refresh token. A spent one presented again is a reuse (someone holds a
 * copy): every token and session of its user is revoked, access tokens included.
 */
async function refuse(platform: Platform, claims: TokenClaims): Promise<never> {
  const { reason, familyId, userId, userUuid } = await tokenRepository.refusal(platform.pool, claims.jti, tokenVersionOf(claims));
  if (reason === 'reused' && userId !== undefined) {
    await withTransaction(platform.pool, (client) => tokenRepository.revokeAllForUser(pgExec(client), userId));
    platform.invalidation.publish({ kind: 'user', uuid: userUuid });
    platform.log.warn({ familyId }, 'refresh token reuse detected; every token and session of its user revoked');
  } else if (familyId && reason === 'user_inactive') {
    await tokenRepository.revokeFamily(platform.pool, familyId);
  }
  if (reason === 'user_inactive') throw errors.authenticationFailed('User is inactive or deleted.');
  if (reason === 'revoked') throw errors.tokenNotValid('Token has been revoked: sign in again.');
  throw errors.tokenNotValid('Token is blacklisted.');
}

/** Rotation: the presented refresh token is spent and a new pair of the same family issued. */
export async function rotateRefreshToken(platform: Platform, refresh: string): Promise<TokenPair> {
  const claims = verifyToken(platform, refresh, 'refresh');
  // Spending a token that is not spendable changes nothing, so committing then is harmless.
  const pair = await withTransaction(platform.pool, async (client) => {
    const used = await tokenRepository.markUsed(client, claims.jti, tokenVersionOf(claims));
    return used ? signPair(client, platform, used.user, used.familyId) : null;
  });
  return pair ?? refuse(platform, claims);
}

/**
 * Logout: blacklists the refresh token's family and, when the caller also sent its access
 * token (same user), that access token too, so it stops working before it expires.
 */
export async function blacklistRefreshToken(platform: Platform, refresh: string, accessToken?: string): Promise<void> {
  const claims = verifyToken(platform, refresh, 'refresh');
  const familyId = await tokenRepository.revokeIfUsable(platform.pool, claims.jti);
  if (!familyId) return refuse(platform, claims);
  await tokenRepository.revokeFamily(platform.pool, familyId);
  if (accessToken) {
    const access = verifyToken(platform, accessToken, 'access');
    if (access.sub === claims.sub) await revokeAccessToken(platform, access.jti, new Date(access.exp * 1000));
  }
}

export async function revokeAccessToken(platform: Platform, jti: string, expiresAt: Date): Promise<void> {
  await tokenRepository.revokeAccess(platform.pool, jti, expiresAt);
  platform.invalidation.publish({ kind: 'accessToken', jti });
}

/** The active user an access token speaks for, or token_not_valid. Cached (platform.auth). */
export async function userForAccessToken(platform: Platform, token: string): Promise<{ user: AuthUser; jti: string; exp: number }> {
  const claims = verifyToken(platform, token, 'access');
  const state = platform.auth;
  if (await state.revokedAccess.has(claims.jti, () => tokenRepository.revokedAccessJtis(platform.pool)))
    throw errors.tokenNotValid('Token is blacklisted.');
  const user = await state.users.get(claims.sub, () => tokenRepository.activeUserByUuid(platform.pool, claims.sub));
  if (!user) throw errors.tokenNotValid('User not found or inactive.');
  if (tokenVersionOf(claims) !== user.tokenVersion) throw errors.tokenNotValid('Token has been revoked: sign in again.');
  return { user, jti: claims.jti, exp: claims.exp };
}

/** `POST /token/verify/`: any valid token of ours, still usable. */
export async function verifyAnyToken(platform: Platform, token: string): Promise<void> {
  const claims = verifyToken(platform, token);
  if (claims.type === 'access') await userForAccessToken(platform, token);
  else if (!(await tokenRepository.isUsable(platform.pool, claims.jti, tokenVersionOf(claims)))) {
    throw errors.tokenNotValid('Token is blacklisted.');
  }
}
