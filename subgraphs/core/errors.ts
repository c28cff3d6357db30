// The platform's one error catalogue. Services throw only AppError, built through the
// factories below; each transport renders it in exactly one place (REST error renderer,
// GraphQL formatError).

export type FieldErrors = Record<string, string[]>;

export interface AppErrorInit {
  code: string;
  status: number;
  message: string;
  errors?: FieldErrors;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly errors?: FieldErrors;
  /** Extra, module-specific data a renderer may place in the body (never secret values). */
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(init: AppErrorInit) {
    super(init.message);
    this.name = 'AppError';
    this.code = init.code;
    this.status = init.status;
    this.errors = init.errors;
    this.details = init.details;
    this.headers = init.headers;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

export const errors = {
  invalid: (message = 'Invalid input.', fieldErrors?: FieldErrors, details?: Record<string, unknown>) =>
    new AppError({ code: 'invalid', status: 400, message, errors: fieldErrors, details }),
  field: (field: string, message: string) => new AppError({ code: 'invalid', status: 400, message, errors: { [field]: [message] } }),
  parse: (message = 'Malformed request body.') => new AppError({ code: 'parse_error', status: 400, message }),
  unsupportedMediaType: (type: string) =>
    new AppError({ code: 'unsupported_media_type', status: 415, message: `Unsupported media type "${type}" in request.` }),
  payloadTooLarge: (limit: number) =>
    new AppError({ code: 'payload_too_large', status: 413, message: `Request body is larger than ${limit} bytes.` }),
  notAuthenticated: (message = 'Authentication credentials were not provided.') =>
    new AppError({ code: 'not_authenticated', status: 401, message }),
  authenticationFailed: (message = 'Incorrect authentication credentials.') =>
    new AppError({ code: 'authentication_failed', status: 401, message }),
  tokenNotValid: (message = 'Given token not valid for any token type.') => new AppError({ code: 'token_not_valid', status: 401, message }),
  permissionDenied: (message = 'You do not have permission to perform this action.') =>
    new AppError({ code: 'permission_denied', status: 403, message }),
  csrfFailed: (message = 'CSRF Failed: CSRF token missing or incorrect.') =>
    new AppError({ code: 'permission_denied', status: 403, message }),
  notFound: (message = 'Not found.') => new AppError({ code: 'not_found', status: 404, message }),
  methodNotAllowed: (method: string) =>
    new AppError({ code: 'method_not_allowed', status: 405, message: `Method "${method}" not allowed.` }),
  conflict: (message = 'Conflict.', fieldErrors?: FieldErrors) =>
    new AppError({ code: 'conflict', status: 409, message, errors: fieldErrors }),
  throttled: (retryAfterSec: number) =>
    new AppError({
      code: 'throttled',
      status: 429,
      message: `Request was throttled. Expected available in ${retryAfterSec} seconds.`,
      headers: { 'Retry-After': String(retryAfterSec) },
    }),
  tenantNotFound: (host: string) =>
    new AppError({ code: 'tenant_not_found', status: 404, message: `No site is served at host "${host}".` }),
  tenantRequired: () =>
    new AppError({
      code: 'tenant_required',
      status: 400,
      message: "This route needs a site: call it on one of the site's domains.",
    }),
  unavailable: (message: string) => new AppError({ code: 'service_unavailable', status: 503, message }),
  internal: () => new AppError({ code: 'internal_error', status: 500, message: 'Internal server error.' }),
  /** A stored secret that the configured master key cannot open (lost/changed key, or a moved ciphertext). */
  secretUndecryptable: (message = 'The secret value cannot be decrypted with the configured master key (SECRETS_MASTER_KEY).') =>
    new AppError({ code: 'secret_undecryptable', status: 500, message }),
};
