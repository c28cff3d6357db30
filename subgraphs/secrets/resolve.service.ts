// `secret.<key>` and `secret.<key>.<field>` references for other modules (analytics templates,
// connection secrets): app tier first, then site tier. The value goes back to the calling
// module only; this function logs nothing about it, and its errors name the key, never a value.
import type { RequestContext } from '../core/context.js';
import { siteOf } from './secret-access.js';
import { secretsError } from './secrets-errors.js';
import { secretRepository } from './secret.repository.js';
import { identityOf } from './secret.service.js';
import { openValue } from './secret-crypto.js';

const REF_RE = /^secret\.([A-Za-z0-9_-]{1,200})(?:\.([A-Za-z0-9_-]{1,200}))?$/;

const resolutionError = (detail: string) => secretsError(404, 'secret_resolution_error', { error: 'Secret not found.', detail: detail });

export interface ParsedReference {
  key: string;
  field: string | null;
}

/** `secret.<key>[.<field>]` (surrounding spaces allowed, as inside `{{ … }}`); null otherwise. */
export function parseSecretReference(ref: string): ParsedReference | null {
  const m = REF_RE.exec(ref.trim());
  return m ? { key: m[1], field: m[2] ?? null } : null;
}

/**
 * The value a reference names, for the request's site and app `appId` (null: site tier only).
 * Access to the calling feature is the caller's check; this resolves inside the tenant only.
 */
export async function resolveSecretReference(ctx: RequestContext, appId: number | null, ref: string): Promise<unknown> {
  const site = siteOf(ctx);
  const parsed = parseSecretReference(ref);
  if (!parsed)
    throw secretsError(400, 'secret_resolution_error', {
      error: 'Invalid secret reference.',
      detail: 'Expected secret.<key> or secret.<key>.<field>.',
    });
  const row = await secretRepository.findFirst(ctx.platform.pool, site.id, appId, parsed.key);
  if (!row) throw resolutionError(`No secret with key "${parsed.key}".`);
  const value = await openValue(ctx.platform, identityOf(row), row.stored);
  if (parsed.field === null) return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, parsed.field)) {
    throw resolutionError(`Secret "${parsed.key}" has no field "${parsed.field}".`);
  }
  return (value as Record<string, unknown>)[parsed.field];
}
