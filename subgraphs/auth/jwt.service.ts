// JSON Web Tokens (DECISIONS §3). Claims are exactly: sub (user uuid), username, is_staff,
// is_superuser, jti, iat, exp, type, and ver: the user's token version when it was issued
// (issue 10: a credential change moves the version on and retires every older token). The integer user id is deliberately not a claim: the
// edge resolves sub → user through a short-lived cache (auth-state.ts), which is also what
// makes deactivated users lose access within a bounded time.
import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { errors } from '../core/errors.js';
import type { JwtKeys } from '../core/keys.js';
import type { Platform } from '../core/platform.js';

export type TokenType = 'access' | 'refresh';

/** What a token says about its user (a tenancy User satisfies it). */
export interface TokenSubject {
  uuid: string;
  username: string;
  isStaff: boolean;
  isSuperuser: boolean;
  /** users.token_version; tokens of an older version are refused. */
  tokenVersion: number;
}

export interface TokenClaims {
  sub: string;
  username: string;
  is_staff: boolean;
  is_superuser: boolean;
  jti: string;
  iat: number;
  exp: number;
  type: TokenType;
  /** The user's token version at issue (absent on tokens from before versions: 0). */
  ver?: number;
}

/** The token version a token was issued under. */
export const tokenVersionOf = (claims: TokenClaims): number => claims.ver ?? 0;

export interface SignedToken {
  token: string;
  jti: string;
  expiresAt: Date;
}

interface KeyObjects {
  sign: crypto.KeyObject;
  verify: crypto.KeyObject;
}

// PEM parsing costs more than the signature check itself; do it once per key ring.
const keyObjectCache = new WeakMap<JwtKeys, KeyObjects>();

function keyObjects(keys: JwtKeys): KeyObjects {
  let k = keyObjectCache.get(keys);
  if (!k) {
    k =
      keys.algorithm === 'HS256'
        ? { sign: crypto.createSecretKey(Buffer.from(keys.signingKey)), verify: crypto.createSecretKey(Buffer.from(keys.verifyKey)) }
        : { sign: crypto.createPrivateKey(keys.signingKey), verify: crypto.createPublicKey(keys.verifyKey) };
    keyObjectCache.set(keys, k);
  }
  return k;
}

export function signToken(platform: Platform, user: TokenSubject, type: TokenType): SignedToken {
  const keys = platform.keys.jwt;
  const ttl = type === 'access' ? platform.config.jwt.accessTtlSec : platform.config.jwt.refreshTtlSec;
  const iat = Math.floor(Date.now() / 1000);
  const jti = crypto.randomUUID();
  const claims: TokenClaims = {
    sub: user.uuid,
    username: user.username,
    is_staff: user.isStaff,
    is_superuser: user.isSuperuser,
    jti,
    iat,
    exp: iat + ttl,
    type,
    ver: user.tokenVersion,
  };
  const token = jwt.sign(claims, keyObjects(keys).sign, { algorithm: keys.algorithm, keyid: keys.kid });
  return { token, jti, expiresAt: new Date(claims.exp * 1000) };
}

export const signAccessToken = (platform: Platform, user: TokenSubject): string => signToken(platform, user, 'access').token;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Clients send the same access token many times; its signature needs checking only once.
// Keyed by the whole token string (identical bytes, identical verdict); expiry is still
// checked on every use, and only successful verifications are remembered.
const verified = new WeakMap<JwtKeys, Map<string, TokenClaims>>();
const MAX_VERIFIED = 10_000;

/** Signature, algorithm, expiry, claim shape and type; throws token_not_valid. */
export function verifyToken(platform: Platform, token: string, type?: TokenType): TokenClaims {
  const keys = platform.keys.jwt;
  let seen = verified.get(keys);
  if (!seen) verified.set(keys, (seen = new Map()));
  const hit = seen.get(token);
  if (hit && hit.exp > Date.now() / 1000) {
    if (type === undefined || hit.type === type) return hit;
    throw errors.tokenNotValid(`Token has wrong type: expected ${type}.`);
  }
  const claims = verifySignature(keys, token, type);
  // Refresh tokens are used once; caching them would only take room.
  if (claims.type === 'access') {
    if (seen.size >= MAX_VERIFIED) seen.clear();
    seen.set(token, claims);
  }
  return claims;
}

function verifySignature(keys: JwtKeys, token: string, type?: TokenType): TokenClaims {
  let claims: jwt.JwtPayload;
  try {
    // Pinning the one algorithm in use rules out "none" and RS/HS confusion.
    claims = jwt.verify(token, keyObjects(keys).verify, { algorithms: [keys.algorithm] }) as jwt.JwtPayload;
  } catch {
    throw errors.tokenNotValid();
  }
  const ok =
    typeof claims === 'object' &&
    typeof claims.sub === 'string' &&
    UUID_RE.test(claims.sub) &&
    typeof claims.jti === 'string' &&
    typeof claims.exp === 'number' &&
    typeof claims.iat === 'number' &&
    (claims.type === 'access' || claims.type === 'refresh') &&
    (claims.ver === undefined || (Number.isSafeInteger(claims.ver) && claims.ver >= 0)) &&
    (type === undefined || claims.type === type);
  if (!ok) throw errors.tokenNotValid(type ? `Token has wrong type: expected ${type}.` : undefined);
  return claims as TokenClaims;
}
