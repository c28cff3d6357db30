// Authentication by API key (DECISIONS §3): the key's app acts as a service principal inside
// its own site. Key format and generation: subgraphs/tenancy/api-key-format.ts.
import type { ApiKeyPrincipal, SiteRef } from '../core/context.js';
import { errors } from '../core/errors.js';
import type { Platform } from '../core/platform.js';
import { apiKeyFormat } from '../tenancy/tenancy.api.js';
import { authRepository } from './auth.repository.js';

const TOUCH_EVERY_MS = 60_000;
/** The app's service principal for a key presented on `site`'s host; 401 otherwise. */
export async function apiKeyPrincipal(platform: Platform, key: string, site: SiteRef | null): Promise<ApiKeyPrincipal> {
  if (!apiKeyFormat.looksLikeKey(key)) throw errors.authenticationFailed('Invalid API key.');
  const state = platform.auth;
  const hash = apiKeyFormat.hash(key);
  const found = await state.apiKeys.get(hash, () => authRepository.findApiKey(platform.pool, hash));
  if (!found) throw errors.authenticationFailed('Invalid API key.');
  // A key acts only inside its own site: on any other host (or a platform host) it is refused.
  if (!site || site.id !== found.siteId) throw errors.authenticationFailed('This API key is not valid for this site.');
  touch(platform, found.keyId);
  return { kind: 'api_key', keyId: found.keyId, appId: found.appId, siteId: found.siteId };
}

/** last_used_at at most once a minute per key and process, off the request's path. */
function touch(platform: Platform, keyId: number): void {
  const touched = platform.auth.apiKeyTouched;
  const now = Date.now();
  if ((touched.get(keyId) ?? 0) + TOUCH_EVERY_MS > now) return;
  if (touched.size > 10_000) touched.clear();
  touched.set(keyId, now);
  authRepository
    .touchApiKey(platform.pool, keyId)
    .catch((e: Error) => platform.log.warn({ keyId, err: e.message }, 'could not record API key use'));
}
