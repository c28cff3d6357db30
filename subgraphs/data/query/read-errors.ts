// Database errors of record reads. Values are checked before they are bound, so these are
// the rare cases the checks cannot foresee (a date PostgreSQL finds out of range, a search
// text that overflows a tsquery): a 400 about the query, never a 500.
import pg from 'pg';
import { dataErrors } from '../data-errors.js';

/** SQLSTATE classes and codes caused by the request's values rather than by the platform. */
function isInputError(code: string): boolean {
  return code.startsWith('22') || code === '54001' || code === '54000' || code === '42804';
}

export function translateReadError(e: unknown): unknown {
  if (e instanceof pg.DatabaseError && e.code && isInputError(e.code)) {
    return dataErrors.invalidParam('query', `The database refused a value of the query: ${e.message}`);
  }
  return e;
}
