// How a field is reached in SQL for either provider: a flat_table column, or a key of the
// jsonb store's `data` cast to the field's column type, so every operator is written once.
import { columnTypeOf } from '../model/field-parse.js';
import type { DataTable, FieldModel, FieldType } from '../model/table-model.js';
import { ident } from '../sql.js';

/** PostgreSQL type of a field (the flat_table column type; the cast target in the jsonb store). */
export const sqlTypeOf = (field: Pick<FieldModel, 'type' | 'format' | 'generated'>): string => columnTypeOf(field);

export const isJsonType = (t: FieldType): boolean => t === 'object' || t === 'array' || t === 'any';

/** `alias.` or nothing. */
export const prefixOf = (alias?: string): string => (alias ? ident(alias) + '.' : '');

/**
 * The field's value as an SQL expression of its column type. jsonb store: `data->'f'` for
 * JSON fields, `data->>'f'` cast otherwise (values were validated on write, so casts hold).
 * Field names come from the validated model; they are quoted as literals here.
 */
export function fieldExpr(table: Pick<DataTable, 'provider'>, field: FieldModel, alias?: string): string {
  const p = prefixOf(alias);
  if (table.provider === 'flat_table') return p + ident(field.name);
  const key = "'" + field.name.replace(/'/g, "''") + "'";
  if (isJsonType(field.type)) return `${p}"data"->${key}`;
  const t = sqlTypeOf(field);
  return t === 'text' ? `(${p}"data"->>${key})` : `(${p}"data"->>${key})::${t}`;
}

/** The field as text, for the string operators (a uuid column is compared as its text form). */
export function textExpr(table: Pick<DataTable, 'provider'>, field: FieldModel, alias?: string): string {
  const e = fieldExpr(table, field, alias);
  return sqlTypeOf(field) === 'text' ? e : `(${e})::text`;
}
