// The analytics module's REST envelope (seed 2 "Errors" analytics names, DECISIONS §10):
// `{status: "error", code, message, errors?|details?}`; details never hold secret values.
import type { AppError } from '../core/errors.js';

export function renderAnalyticsError(err: AppError): Record<string, unknown> {
  return { status: 'error', code: err.code, message: err.message, ...(err.errors ? { errors: err.errors } : {}) };
}
