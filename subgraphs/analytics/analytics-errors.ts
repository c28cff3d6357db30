// The analytics module's errors (seed 2 "Errors" analytics names, DECISIONS §10) and its REST
// envelope `{status: "error", code, message, errors?|details?}`. Details are built from fixed
// texts, positions, keys and engine error classes only: never a secret value or a password.
import { AppError, type FieldErrors } from '../core/errors.js';

export const analyticsErrors = {
  /** 400: invalid template or syntax, blocked operation; per-field messages. */
  validation: (fieldErrors: FieldErrors, message = 'The query is not valid.') =>
    new AppError({ code: 'QueryValidationError', status: 400, message, errors: fieldErrors }),
  /** 400: connection secret missing, of the wrong type, or a `secret.*` reference that does not resolve. */
  secretResolution: (message: string, details?: Record<string, unknown>) =>
    new AppError({ code: 'SecretResolutionError', status: 400, message, details }),
  /** 422: the engine refused or failed the query at run time. */
  execution: (message: string, details?: Record<string, unknown>) =>
    new AppError({ code: 'QueryExecutionError', status: 422, message, details }),
  /** 502: the engine could not be reached or broke the connection. */
  connector: (message: string, details?: Record<string, unknown>) =>
    new AppError({ code: 'ConnectorError', status: 502, message, details }),
  queryNotFound: (slug: string) => new AppError({ code: 'not_found', status: 404, message: `No analytics query "${slug}" in this app.` }),
  /** 409: too many executions of this site are already waiting (ANALYTICS_MAX_CONCURRENT run at once). */
  busy: () =>
    new AppError({
      code: 'conflict',
      status: 409,
      message: 'Too many analytics executions of this site are waiting; try again when they finish.',
    }),
};

export function renderAnalyticsError(err: AppError): Record<string, unknown> {
  return {
    status: 'error',
    code: err.code,
    message: err.message,
    ...(err.errors ? { errors: err.errors } : {}),
    ...(err.details ? { details: err.details } : {}),
  };
}
