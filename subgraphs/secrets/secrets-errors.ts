// The secrets module's REST envelope (seed 2 "Errors", Secrets table): `{error, detail}` by
// default; where the seed fixes a shape exactly (`{message, field}`, `{error}` alone, …) the
// service passes the whole body as `details.body`.
import type { AppError } from '../core/errors.js';

export function renderSecretsError(err: AppError): Record<string, unknown> {
  if (err.details?.body) return err.details.body as Record<string, unknown>;
  return { error: err.message, detail: err.details?.detail ?? err.errors ?? err.message, ...(err.details?.extra as object) };
}
