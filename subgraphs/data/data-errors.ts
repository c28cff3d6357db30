// Errors of the data service in its seed envelope (render-error 'data'): 400
// `{error, details: {field: [messages]}}` or `{error, detail, field}`, 404 `{error, detail}`,
// 409 `{error, detail, field}`, 403 `{error, detail}`.
import { AppError, type FieldErrors } from '../core/errors.js';

export const dataErrors = {
  /** 400 with per-field messages. */
  validation: (fieldErrors: FieldErrors, error = 'Validation failed.') =>
    new AppError({ code: 'invalid', status: 400, message: error, errors: fieldErrors }),
  /** 400 about one query parameter or body field. */
  invalidParam: (param: string, message: string) =>
    new AppError({ code: 'invalid', status: 400, message: 'Invalid query.', errors: { [param]: [message] } }),
  /** 400 `{error, detail, field}` (e.g. a referenced record that does not exist). */
  badField: (field: string, detail: string, error = 'Validation failed.') =>
    new AppError({ code: 'invalid', status: 400, message: error, details: { detail, field } }),
  tableNotFound: (name: string) =>
    new AppError({
      code: 'not_found',
      status: 404,
      message: 'Datatable not found.',
      details: { detail: `No datatable named "${name}" in this app.` },
    }),
  recordNotFound: (id: string) =>
    new AppError({ code: 'not_found', status: 404, message: 'Record not found.', details: { detail: `No record with id "${id}".` } }),
  unique: (field: string, detail: string) =>
    new AppError({ code: 'conflict', status: 409, message: 'Unique constraint violated.', details: { detail, field } }),
  restricted: (detail: string) =>
    new AppError({ code: 'permission_denied', status: 403, message: 'Delete blocked by related records.', details: { detail } }),
  unprocessable: (detail: string) =>
    new AppError({ code: 'unprocessable', status: 422, message: 'The request cannot be processed.', details: { detail } }),
};

/** The data service's REST envelope (seed 3 "Errors"), for the module manifest. */
export function renderDataError(err: AppError): Record<string, unknown> {
  if (err.errors) return { error: err.message, details: err.errors };
  return { error: err.message, detail: err.details?.detail ?? err.message, ...(err.details?.field ? { field: err.details.field } : {}) };
}
