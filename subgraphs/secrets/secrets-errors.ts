// The secrets module's errors and REST envelope (seed 2 "Errors", Secrets table): the body is
// `{error, detail}` for most errors; where the seed fixes another shape exactly (`{message,
// field}`, `{error}` alone, …) the service passes that shape. GraphQL carries the same body in
// `extensions.details.body`. Errors raised outside the module (platform errors) render as
// `{error, detail}` from their message and field errors.
import { AppError } from '../core/errors.js';

/** A secrets error whose REST body is exactly `body`. */
export function secretsError(status: number, code: string, body: Record<string, unknown>): AppError {
  return new AppError({ code, status, message: String(body.error ?? body.message ?? code), details: { body } });
}

export function renderSecretsError(err: AppError): Record<string, unknown> {
  if (err.details?.body) return err.details.body as Record<string, unknown>;
  return { error: err.message, detail: err.errors ?? err.message };
}
