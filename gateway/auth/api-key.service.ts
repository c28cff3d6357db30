// API keys (DECISIONS §3): `tk_<prefix>_<secret>`. Only the SHA-256 of the whole key is
// stored (a key carries 256 random bits, so a fast hash is enough); the prefix is kept in
// clear so people can tell their keys apart.
import crypto from 'node:crypto';
import type { ApiKeyPrincipal, SiteRef } from '../../subgraphs/core/context.js';
import { errors } from '../../subgraphs/core/errors.js';
import type { Platform } from '../../subgraphs/core/platform.js';
import { authState } from './auth-state.js';
import { authRepository } from './auth.repository.js';
import { sha256 } from './session.service.js';

export interface GeneratedApiKey {
  /** Shown to its creator once, never stored. */
  key: string;
  prefix: string;
  /** What goes into api_keys.key_hash. */
  hash: string;
}

const KEY_RE = /^tk_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/;
const TOUCH_EVERY_MS = 60_000;

export const apiKeyService = {
  generate(): GeneratedApiKey {
    const prefix = crypto.randomBytes(4).toString('hex');
    const key = `tk_${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
    return { key, prefix, hash: sha256(key) };
  },
  hash: (key: string): string => sha256(key),
  looksLikeKey: (key: string): boolean => KEY_RE.test(key),
};

/** The app's service principal for a key presented on `site`'s host; 401 otherwise. */
export async function apiKeyPrincipal(platform: Platform, key: string, site: SiteRef | null): Promise<ApiKeyPrincipal> {
  if (!apiKeyService.looksLikeKey(key)) throw errors.authenticationFailed('Invalid API key.');
  const state = authState(platform);
  const hash = sha256(key);
  const found = await state.apiKeys.get(hash, () => authRepository.findApiKey(platform.pool, hash));
  if (!found) throw errors.authenticationFailed('Invalid API key.');
  // A key acts only inside its own site: on any other host (or a platform host) it is refused.
  if (!site || site.id !== found.siteId) throw errors.authenticationFailed('This API key is not valid for this site.');
  touch(platform, found.keyId);
  return { kind: 'api_key', keyId: found.keyId, appId: found.appId, siteId: found.siteId };
}

/** last_used_at at most once a minute per key and process, off the request's path. */
function touch(platform: Platform, keyId: number): void {
  const touched = authState(platform).apiKeyTouched;
  const now = Date.now();
  if ((touched.get(keyId) ?? 0) + TOUCH_EVERY_MS > now) return;
  if (touched.size > 10_000) touched.clear();
  touched.set(keyId, now);
  authRepository
    .touchApiKey(platform.pool, keyId)
    .catch((e: Error) => platform.log.warn({ keyId, err: e.message }, 'could not record API key use'));
}
