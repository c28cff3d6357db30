// The one place where platform errors become REST bodies: the console envelope
// `{detail, code, status_code}` (seed 1 "Errors", DECISIONS §4), or the envelope of the module
// that owns the route (its manifest's `restErrors`, as the seeds differ per module).
import { AppError } from '../../subgraphs/core/errors.js';
import type { RestErrorRenderer } from '../../subgraphs/core/rest.js';

/**
 * Errors the platform raises before any module handles the request (tenant from the host,
 * authentication, rate limits, the database being down). They keep the platform envelope on every route, module routes
 * included (DECISIONS §2 and the error table), so a client handles them in one way.
 */
export const PLATFORM_ERROR_CODES: ReadonlySet<string> = new Set([
  'tenant_required',
  'tenant_not_found',
  'not_authenticated',
  'authentication_failed',
  'throttled',
  'service_unavailable',
]);

export function renderConsoleError(err: AppError): Record<string, unknown> {
  const body: Record<string, unknown> = { detail: err.message, code: err.code, status_code: err.status };
  if (err.errors) body.errors = err.errors;
  if (err.details) Object.assign(body, err.details);
  return body;
}

export function renderRestError(err: AppError, moduleRenderer?: RestErrorRenderer): Record<string, unknown> {
  if (!moduleRenderer || PLATFORM_ERROR_CODES.has(err.code)) return renderConsoleError(err);
  return moduleRenderer(err);
}
