// The events module's REST envelope (seed 3 "Events" responses): `{status: "error", code,
// message}` with the code in upper case (`NOT_FOUND`, `EXECUTION_ERROR`).
import type { AppError } from '../core/errors.js';

export function renderEventsError(err: AppError): Record<string, unknown> {
  return { status: 'error', code: err.code.toUpperCase(), message: err.message };
}
