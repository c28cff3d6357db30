// SQL fragments shared by record writes of both providers: the select list of a record, how a
// value is bound for its column, and how a set of primary keys is matched. Identifiers come
// from the validated model only; values are always parameters.
import { randomUUID } from 'node:crypto';
import type { DataTable, FieldModel, TableModel } from '../model/table-model.js';
import { fieldOf } from '../model/table-model.js';
import { sqlTypeOf, isJsonType } from '../query/field-expr.js';
import { ident, qualified, type Params } from '../sql.js';

export type Row = Record<string, unknown>;

export const tableName = (table: Pick<DataTable, 'schemaName' | 'physicalName'>): string => qualified(table.schemaName, table.physicalName);

/** The columns a record is read from: every field (flat_table), or the jsonb store's data. */
export function selectList(table: Pick<DataTable, 'provider' | 'model'>, alias?: string): string {
  const p = alias ? ident(alias) + '.' : '';
  if (table.provider === 'jsonb') return `${p}"record_id", ${p}"data"`;
  return table.model.fields.map((f) => p + ident(f.name)).join(', ');
}

/** A value as bound for its flat_table column: JSON fields as JSON text (pg would make arrays SQL arrays). */
export function columnValue(field: FieldModel, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return isJsonType(field.type) ? JSON.stringify(value) : value;
}

/** A value as stored in the jsonb store: datetimes normalized to ISO UTC so they sort and print alike. */
export function storedValue(field: FieldModel, value: unknown): unknown {
  if (field.type === 'datetime' && typeof value === 'string') {
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? value : d.toISOString();
  }
  return value;
}

export const keyFields = (model: TableModel): FieldModel[] => model.primaryKey.map((k) => fieldOf(model, k)!);

/** The jsonb store's `record_id` of key values (canonical: integers without leading zeros, uuids lower case). */
export function storeRecordId(model: TableModel, values: readonly unknown[]): string {
  const fields = keyFields(model);
  const parts = values.map((v, i) => {
    const f = fields[i];
    if (f.type === 'integer' && (typeof v === 'string' || typeof v === 'number')) return BigInt(v).toString();
    if (f.type === 'string' && (f.format === 'uuid' || f.generated === 'uuid')) return String(v).toLowerCase();
    return String(v);
  });
  return parts.length > 1 ? parts.map(encodeURIComponent).join(',') : parts[0];
}

/**
 * Rows whose key is one of `keys` (each the key values in key order). flat_table:
 * `"id" = ANY($1::uuid[])` or `("a","b") IN (SELECT * FROM unnest(…))`; jsonb: by record_id.
 */
export function keysCondition(
  table: Pick<DataTable, 'provider' | 'model' | 'id'>,
  keys: readonly unknown[][],
  params: Params,
  alias?: string,
): string {
  const p = alias ? ident(alias) + '.' : '';
  if (table.provider === 'jsonb') {
    const ids = keys.map((k) => storeRecordId(table.model, k));
    return `${p}"table_id" = ${params.add(table.id)} AND ${p}"record_id" = ANY(${params.add(ids)}::text[])`;
  }
  const fields = keyFields(table.model);
  if (fields.length === 1) return `${p}${ident(fields[0].name)} = ANY(${params.add(keys.map((k) => k[0]))}::${sqlTypeOf(fields[0])}[])`;
  const cols = fields.map((f) => p + ident(f.name)).join(', ');
  const arrays = fields.map((f, i) => `${params.add(keys.map((k) => k[i]))}::${sqlTypeOf(f)}[]`).join(', ');
  return `(${cols}) IN (SELECT * FROM unnest(${arrays}))`;
}

/** Key values of a record, in key order. */
export const keyOf = (model: TableModel, record: Row): unknown[] => model.primaryKey.map((k) => record[k]);

/**
 * A jsonb-store record with what the database would have filled in on a flat_table: defaults
 * (`now` for date/datetime), generated uuid keys, `is_deleted` false, created/updated times.
 * Integer identity keys are assigned by the caller (they need the store's sequence).
 */
export function withStoreDefaults(model: TableModel, body: Row, now: Date): Row {
  const out: Row = {};
  for (const f of model.fields) {
    let v = body[f.name];
    if (v === undefined) {
      if (f.auto) v = now.toISOString();
      else if (f.default === 'now' && f.type === 'datetime') v = now.toISOString();
      else if (f.default === 'now' && f.type === 'date') v = now.toISOString().slice(0, 10);
      else if (f.default !== undefined) v = f.default;
      else if (f.generated === 'uuid') v = randomUUID();
      else if (f.name === 'is_deleted' && model.softDelete) v = false;
    }
    if (v !== undefined) out[f.name] = storedValue(f, v);
  }
  return out;
}

/** The jsonb store's sequence, used for integer identity keys of jsonb tables. */
export const storeSequenceSql = (params: Params, table: Pick<DataTable, 'schemaName' | 'physicalName'>): string =>
  `nextval(pg_get_serial_sequence(${params.add(tableName(table))}, 'seq'))`;
