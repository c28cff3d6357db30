// The one place where platform errors become REST bodies. Each module's documented
// envelope is chosen by the route's errorStyle; console style is the default.
import { AppError } from '../../subgraphs/core/errors.js';
import type { ErrorStyle } from './types.js';

export function renderRestError(err: AppError, style: ErrorStyle = 'console'): Record<string, unknown> {
  switch (style) {
    case 'secrets':
      // Several seed shapes are fixed exactly (`{message, field}`, `{error}` alone, …): a
      // service that builds one passes it whole as details.body.
      if (err.details?.body) return err.details.body as Record<string, unknown>;
      return { error: err.message, detail: err.details?.detail ?? err.errors ?? err.message, ...(err.details?.extra as object) };
    case 'data':
      return err.errors
        ? { error: err.message, details: err.errors }
        : { error: err.message, detail: err.details?.detail ?? err.message, ...(err.details?.field ? { field: err.details.field } : {}) };
    case 'storage':
      return { success: false, message: err.message, status_code: err.status };
    case 'analytics':
      return { status: 'error', code: err.code, message: err.message, ...(err.errors ? { errors: err.errors } : {}) };
    case 'events':
      return { status: 'error', code: err.code.toUpperCase(), message: err.message };
    default: {
      const body: Record<string, unknown> = { detail: err.message, code: err.code, status_code: err.status };
      if (err.errors) body.errors = err.errors;
      if (err.details) Object.assign(body, err.details);
      return body;
    }
  }
}
