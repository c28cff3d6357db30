// Errors of the storage module and its REST envelope (seed 2 "Errors", Storage table):
// `{success: false, message, status_code}` unless the seed fixes another shape for the case, which
// the factory puts in `details.body`. GraphQL sees the same AppError (extensions.code = code).
import { AppError, type FieldErrors } from '../core/errors.js';

const body = (code: string, status: number, message: string, shape: Record<string, unknown>, errors?: FieldErrors) =>
  new AppError({ code, status, message, errors, details: { body: shape } });

export const storageErrors = {
  /** 400 with per-field messages. */
  validation: (fieldErrors: FieldErrors, message = 'Invalid input.') =>
    new AppError({ code: 'invalid', status: 400, message, errors: fieldErrors }),
  tooLarge: (limit: number) =>
    new AppError({ code: 'file_too_large', status: 400, message: `File exceeds the bucket's size limit of ${limit} bytes.` }),
  mimeNotAllowed: (mime: string, allowed: string[]) =>
    new AppError({
      code: 'mime_type_not_allowed',
      status: 400,
      message: `File type "${mime}" is not allowed in this bucket. Allowed types: ${allowed.join(', ')}.`,
    }),
  emptyFile: () => body('empty_file', 400, 'The submitted file is empty.', { error: 'The submitted file is empty.' }),
  bucketNotFound: () => new AppError({ code: 'not_found', status: 404, message: 'Bucket not found.' }),
  objectNotFound: () => new AppError({ code: 'not_found', status: 404, message: 'Object not found.' }),
  /** 404 `{error, detail}` on download (seed: "file missing on download"). */
  fileNotFound: (detail = 'No object with this uuid or path in the bucket.') =>
    body('not_found', 404, 'File not found.', { error: 'File not found.', detail }),
  sourceNotFound: (p: string) => new AppError({ code: 'not_found', status: 404, message: `Source object "${p}" not found.` }),
  bucketExists: (slug: string) =>
    new AppError({
      code: 'conflict',
      status: 409,
      message: `A bucket with slug "${slug}" already exists in this app.`,
      errors: { slug: ['already exists'] },
    }),
  destinationExists: (p: string) => new AppError({ code: 'conflict', status: 409, message: `An object already exists at "${p}".` }),
  /** 400 `{status: 'error', code: 'VALIDATION_ERROR', message}` (copy or move across providers). */
  crossProvider: () =>
    body('VALIDATION_ERROR', 400, 'Source and destination buckets must use the same storage provider.', {
      status: 'error',
      code: 'VALIDATION_ERROR',
      message: 'Source and destination buckets must use the same storage provider.',
    }),
  providerNotConfigured: () =>
    new AppError({
      code: 'invalid',
      status: 400,
      message:
        'The document_library provider is not configured on this platform (set GRAPH_TENANT_ID, GRAPH_CLIENT_ID and GRAPH_CLIENT_SECRET).',
      errors: { provider: ['document_library is not configured (GRAPH_* variables)'] },
    }),
  /** 500 `{success: false, message, status_code, data: {detail}}`. */
  providerFailure: (what: string, detail: string) =>
    body('provider_error', 500, `Storage provider ${what} failed.`, {
      success: false,
      message: `Storage provider ${what} failed.`,
      status_code: 500,
      data: { detail },
    }),
  /** Field-keyed 400 bodies of the batch routes: `{paths: [..]}`, `{files: [..]}`, `{non_field_errors: [..]}`. */
  batchField: (field: 'paths' | 'files' | 'non_field_errors' | 'metadata', message: string) =>
    body('invalid', 400, message, { [field]: [message] }, { [field]: [message] }),
  /** View/edit errors: `{status: 'error', message, code, provider_error_code?}`. */
  viewEdit: (status: number, code: string, message: string, providerErrorCode?: string) =>
    body(code, status, message, {
      status: 'error',
      message,
      code,
      ...(providerErrorCode ? { provider_error_code: providerErrorCode } : {}),
    }),
  rangeNotSatisfiable: (size: number) =>
    new AppError({
      code: 'range_not_satisfiable',
      status: 416,
      message: 'Requested range not satisfiable.',
      headers: { 'Content-Range': `bytes */${size}` },
    }),
};

export function renderStorageError(err: AppError): Record<string, unknown> {
  if (err.details?.body) return err.details.body as Record<string, unknown>;
  return { success: false, message: err.message, status_code: err.status, ...(err.errors ? { errors: err.errors } : {}) };
}
