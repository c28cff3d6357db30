// What other modules may use of the secrets module: secret references resolved server-side
// (analytics templates) and connection secrets read with their type. Values go back to the
// calling module only; errors name keys, never values.
import type { RequestContext } from '../core/context.js';
import { siteOf } from './secret-access.js';
import { openValue } from './secret-crypto.js';
import { secretRepository } from './secret.repository.js';
import { identityOf } from './secret.service.js';

export { parseSecretReference, resolveSecretReference, type ParsedReference } from './resolve.service.js';

export interface ConnectionSecret {
  key: string;
  /** The secret type's slug, e.g. `analytics-postgresql`. */
  typeSlug: string;
  value: unknown;
}

/**
 * The secret `key` of the request's site for app `appId` (app tier first, then site tier),
 * opened; null when there is none. Access to the calling feature is the caller's check.
 */
export async function readConnectionSecret(ctx: RequestContext, appId: number | null, key: string): Promise<ConnectionSecret | null> {
  const site = siteOf(ctx);
  const row = await secretRepository.findFirst(ctx.platform.pool, site.id, appId, key);
  if (!row) return null;
  return { key: row.key, typeSlug: row.typeSlug, value: await openValue(ctx.platform, identityOf(row), row.stored) };
}

/** Only the type of secret `key` (no value opened); null when there is none. */
export async function connectionSecretType(ctx: RequestContext, appId: number | null, key: string): Promise<string | null> {
  const site = siteOf(ctx);
  const row = await secretRepository.findFirst(ctx.platform.pool, site.id, appId, key);
  return row?.typeSlug ?? null;
}
