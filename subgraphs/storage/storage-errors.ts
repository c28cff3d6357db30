// The storage module's REST envelope (seed 2 "Errors", Storage table): `{success: false,
// message, status_code}` unless a service fixes another documented shape in `details.body`.
import type { AppError } from '../core/errors.js';

export function renderStorageError(err: AppError): Record<string, unknown> {
  if (err.details?.body) return err.details.body as Record<string, unknown>;
  return { success: false, message: err.message, status_code: err.status };
}
