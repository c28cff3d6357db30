// The state of one social sign-in between /login/ and /callback/, kept in the browser as a
// short-lived cookie encrypted and authenticated with AES-256-GCM: the PKCE verifier stays
// confidential, and nothing in it can be forged or moved to another provider.
import crypto from 'node:crypto';
import type { Platform } from '../core/platform.js';

export const OIDC_STATE_COOKIE = 'oidc_state';
export const OIDC_STATE_TTL_SEC = 600;

export interface OidcState {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
  next: string | null;
  /** Expiry, epoch seconds. */
  exp: number;
}

const keyCache = new WeakMap<Platform, Buffer>();

// A sub-key of the install's generated secret, so no new key file is needed.
function stateKey(platform: Platform): Buffer {
  let key = keyCache.get(platform);
  if (!key) {
    key = Buffer.from(crypto.hkdfSync('sha256', platform.keys.subgraphSecret, 'tenantry', 'oidc-state-cookie', 32));
    keyCache.set(platform, key);
  }
  return key;
}

export function sealState(platform: Platform, state: OidcState): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', stateKey(platform), iv);
  cipher.setAAD(Buffer.from(state.provider));
  const body = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The state for `provider`, or null when absent, tampered with, for another provider or expired. */
export function openState(platform: Platform, provider: string, sealed: string | undefined): OidcState | null {
  if (!sealed) return null;
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = crypto.createDecipheriv('aes-256-gcm', stateKey(platform), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(provider));
    decipher.setAuthTag(raw.subarray(12, 28));
    const json = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    const state = JSON.parse(json) as OidcState;
    return state.provider === provider && state.exp > Date.now() / 1000 ? state : null;
  } catch {
    return null;
  }
}

/**
 * `?next=` may only lead back to this platform: a path on this host ("/x", not "//x" or
 * "/\x", which browsers read as another host), or an absolute http(s) URL on this host.
 */
export function safeNext(next: unknown, host: string): string | null | false {
  if (next === undefined || next === '') return null;
  // Control characters are exactly what is refused here.
  // eslint-disable-next-line no-control-regex
  if (typeof next !== 'string' || next.length > 2000 || /[\u0000-\u001f\\]/.test(next)) return false;
  if (next.startsWith('/')) return next.startsWith('//') ? false : next;
  try {
    const u = new URL(next);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.toLowerCase() === host && !u.username && !u.password
      ? u.toString()
      : false;
  } catch {
    return false;
  }
}
