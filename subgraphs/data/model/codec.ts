// Rows ↔ records: what a record looks like in responses (docs/data-service.md "Record JSON")
// and how a path `{id}` maps to primary-key values.
import type { DataTable, FieldModel, TableModel } from './table-model.js';

export type DataRecord = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^-?\d{1,19}$/;

/**
 * A record from a row read with RECORD_TYPES (`sql.ts`): flat_table rows carry the fields as
 * columns, jsonb rows carry them in `data`. Fields in schema order; missing ones are null.
 */
export function rowToRecord(table: Pick<DataTable, 'provider' | 'model'>, row: Record<string, unknown>): DataRecord {
  const source = table.provider === 'jsonb' ? ((row.data ?? {}) as Record<string, unknown>) : row;
  const out: DataRecord = {};
  for (const f of table.model.fields) out[f.name] = source[f.name] ?? null;
  if ('rank' in row) out.rank = row.rank;
  if ('excerpt' in row) out.excerpt = row.excerpt;
  return out;
}

/** The record's id as used in paths and events: key values in key order, joined by `,`. */
export function recordIdOf(model: TableModel, record: DataRecord): string {
  return model.primaryKey.map((k) => (model.primaryKey.length > 1 ? encodeURIComponent(String(record[k])) : String(record[k]))).join(',');
}

function keyValue(field: FieldModel, raw: string): unknown {
  switch (field.type) {
    case 'integer':
      return INTEGER.test(raw) && BigInt(raw) <= 9223372036854775807n && BigInt(raw) >= -9223372036854775808n ? raw : undefined;
    case 'number':
      return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : undefined;
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : undefined;
    case 'string':
      return field.format === 'uuid' || field.generated === 'uuid' ? (UUID.test(raw) ? raw.toLowerCase() : undefined) : raw;
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(raw) && !Number.isNaN(Date.parse(raw)) ? raw : undefined;
    default:
      return raw;
  }
}

/**
 * Primary-key values of a path `{id}`, in key order, as bound parameters; null when `id`
 * cannot be a key of this table (the caller answers 404, as for a missing record).
 */
export function parseRecordId(model: TableModel, id: string): unknown[] | null {
  const parts = model.primaryKey.length > 1 ? id.split(',') : [id];
  if (parts.length !== model.primaryKey.length) return null;
  const values: unknown[] = [];
  for (let i = 0; i < parts.length; i++) {
    let raw = parts[i];
    if (model.primaryKey.length > 1) {
      try {
        raw = decodeURIComponent(raw);
      } catch {
        return null;
      }
    }
    const field = model.fields.find((f) => f.name === model.primaryKey[i]);
    const v = field ? keyValue(field, raw) : undefined;
    if (v === undefined) return null;
    values.push(v);
  }
  return values;
}
