// PostgreSQL errors of record writes → the data envelope (docs/data-service.md "Errors"), so
// bad input never becomes a 500. Validation catches almost everything first; these are the
// cases only the database can see (unique, foreign keys, races) and the safety net for the rest.
import { classifyDbError } from '../../core/db-errors.js';
import { AppError } from '../../core/errors.js';
import { dataErrors } from '../data-errors.js';
import type { DataTable } from '../model/table-model.js';
import { fieldOfConstraint } from '../table/table-names.js';

export type WriteKind = 'insert' | 'update' | 'delete';

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
  if (e instanceof AppError) return e;
  const db = classifyDbError(e);
  if (!db) return e;
  const fields = keyFieldsOf(db.detail, table);
  const named = fields.length ? fields.join(',') : fieldOfConstraintName(db.constraint, table);
  const restricted = () =>
    dataErrors.restricted(`Records of another table still reference this record${db.table ? ` ("${db.table}")` : ''}.`);
  switch (db.kind) {
    case 'unique': {
      const field = named ?? 'non_field_errors';
      return dataErrors.unique(at(index, field), `A record with this ${field} already exists.`);
    }
    case 'restrict':
      // ON DELETE RESTRICT (and updating a key that RESTRICT dependants reference).
      return restricted();
    case 'foreign_key': {
      // A delete, or an update of a key that another table's rows reference (the violated
      // constraint belongs to that table), is refused for the dependants' sake.
      const othersKey = db.table !== undefined && table.physicalName !== undefined && db.table !== table.physicalName;
      if (kind === 'delete' || (kind === 'update' && othersKey)) return restricted();
      const field = named ?? 'non_field_errors';
      return dataErrors.badField(
        at(index, field),
        `The referenced record does not exist${db.detail ? `: ${db.detail.replace(/^Key /, '')}` : '.'}`,
      );
    }
    case 'not_null': {
      const field = db.column && table.model.fields.some((f) => f.name === db.column) ? db.column : 'non_field_errors';
      return dataErrors.validation({ [at(index, field)]: ['This field is required.'] });
    }
    case 'check':
      return dataErrors.validation({ [at(index, named ?? 'non_field_errors')]: ['The value violates a constraint of the field.'] });
    case 'invalid_value':
      return dataErrors.validation({ [at(index, named ?? 'non_field_errors')]: ["Invalid value for the field's type."] });
    case 'too_complex':
      return dataErrors.validation({ non_field_errors: ['The request is too large or too deeply nested.'] });
    default:
      return e;
  }
}
