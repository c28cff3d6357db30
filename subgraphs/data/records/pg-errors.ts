// PostgreSQL errors of record writes → the data envelope (docs/data-service.md "Errors"), so
// bad input never becomes a 500. Validation catches almost everything first; these are the
// cases only the database can see (unique, foreign keys, races) and the safety net for the rest.
import { AppError } from '../../core/errors.js';
import { dataErrors } from '../data-errors.js';
import type { DataTable } from '../model/table-model.js';
import { fieldOfConstraint } from '../table/table-names.js';

interface PgError {
  code?: string;
  detail?: string;
  column?: string;
  constraint?: string;
  table?: string;
  message?: string;
}

export type WriteKind = 'insert' | 'update' | 'delete';

const isPgError = (e: unknown): e is PgError =>
  typeof e === 'object' && e !== null && typeof (e as PgError).code === 'string' && /^[0-9A-Z]{5}$/.test((e as PgError).code!);

/**
 * Fields named by a key in an error detail: `Key (a, b)=(…)` for columns, or the jsonb
 * store's expression indexes `Key ((data ->> 'a'::text))=(…)`.
 */
export function keyFieldsOf(detail: string | undefined, table: Pick<DataTable, 'model'>): string[] {
  const m = /^Key \((.*?)\)=\(/.exec(detail ?? '');
  if (!m) return [];
  const jsonKeys = [...m[1].matchAll(/->>\s*'((?:[^']|'')+)'/g)].map((x) => x[1].replace(/''/g, "'"));
  const names = jsonKeys.length ? jsonKeys : m[1].split(',').map((s) => s.trim().replace(/^"(.*)"$/, '$1'));
  return names.filter((n) => n !== 'table_id' && table.model.fields.some((f) => f.name === n));
}

type ErrorTable = Pick<DataTable, 'model' | 'name'> & Partial<Pick<DataTable, 'provider' | 'physicalName' | 'id'>>;

/**
 * The field a constraint guards: constraint names are deterministic hashes (docs "Schema
 * rules") that `fieldOfConstraint` maps back; the jsonb store's own key is the primary key.
 */
export function fieldOfConstraintName(constraint: string | undefined, table: ErrorTable): string | undefined {
  if (!constraint) return undefined;
  if (table.provider && table.physicalName && table.id !== undefined) {
    const f = fieldOfConstraint(
      { provider: table.provider, physicalName: table.physicalName, id: table.id, model: table.model },
      constraint,
    );
    if (f) return f;
  }
  if (constraint.endsWith('_pkey')) return table.model.primaryKey.join(',');
  return undefined;
}

/** Prefix of field keys for item `index` of an array body. */
const at = (index: number | undefined, field: string) => (index === undefined ? field : `[${index}].${field}`);

/** Translates a database error into an AppError; anything unrecognized is rethrown as is. */
export function translatePgError(e: unknown, table: ErrorTable, kind: WriteKind, index?: number): unknown {
  if (e instanceof AppError || !isPgError(e)) return e;
  const fields = keyFieldsOf(e.detail, table);
  const named = fields.length ? fields.join(',') : fieldOfConstraintName(e.constraint, table);
  switch (e.code) {
    case '23505': {
      const field = named ?? 'non_field_errors';
      return dataErrors.unique(at(index, field), `A record with this ${field} already exists.`);
    }
    case '23001':
      // ON DELETE RESTRICT (and updating a key that RESTRICT dependants reference).
      return dataErrors.restricted(`Records of another table still reference this record${e.table ? ` ("${e.table}")` : ''}.`);
    case '23503': {
      if (kind === 'delete') {
        return dataErrors.restricted(`Records of another table still reference this record${e.table ? ` ("${e.table}")` : ''}.`);
      }
      // An insert/update referencing a missing record, or an update of a key that others reference.
      if (e.table && e.detail?.includes('is still referenced')) {
        return dataErrors.restricted(`Records of another table still reference this record.`);
      }
      const field = named ?? 'non_field_errors';
      return dataErrors.badField(
        at(index, field),
        `The referenced record does not exist${e.detail ? `: ${e.detail.replace(/^Key /, '')}` : '.'}`,
      );
    }
    case '23502': {
      const field = e.column && table.model.fields.some((f) => f.name === e.column) ? e.column : 'non_field_errors';
      return dataErrors.validation({ [at(index, field)]: ['This field is required.'] });
    }
    case '23514':
      return dataErrors.validation({ [at(index, named ?? 'non_field_errors')]: ['The value violates a constraint of the field.'] });
    case '22P02':
    case '22003':
    case '22007':
    case '22008':
    case '2201B':
    case '22001':
    case '22021':
    case '22025':
    case '22P05':
    case '2202E':
      return dataErrors.validation({ [at(index, named ?? 'non_field_errors')]: ["Invalid value for the field's type."] });
    case '54000':
    case '54001':
      return dataErrors.validation({ non_field_errors: ['The request is too large or too deeply nested.'] });
    default:
      return e;
  }
}
