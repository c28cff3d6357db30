// Record writes for both providers, on a client inside the caller's transaction. flat_table:
// the table's own columns; jsonb: rows `(table_id, record_id, data)` of the app's store. Every
// statement returns the records it touched, read with RECORD_TYPES, in the API's shape.
import type pg from 'pg';
import { rowToRecord } from '../model/codec.js';
import type { DataTable, FieldModel } from '../model/table-model.js';
import { fieldOf } from '../model/table-model.js';
import { sqlTypeOf } from '../query/field-expr.js';
import { ident, Params, RECORD_TYPES } from '../sql.js';
import {
  columnValue,
  keyOf,
  keysCondition,
  selectList,
  storedValue,
  storeRecordId,
  storeSequenceSql,
  tableName,
  withStoreDefaults,
  type Row,
} from './record-sql.js';

export const BATCH_SIZE = 1000;

type Table = DataTable;

async function run(client: pg.ClientBase, text: string, values: unknown[]): Promise<Row[]> {
  const res = await client.query<Row>({ text, values, types: RECORD_TYPES });
  return res.rows;
}

const toRecords = (table: Table, rows: Row[]): Row[] => rows.map((r) => rowToRecord(table, r));

/** Index of a failing row, set on a database error so it can name `[i].field`. */
export function markIndex(e: unknown, index: number): unknown {
  if (e && typeof e === 'object') (e as { recordIndex?: number }).recordIndex = index;
  return e;
}

// ---- insert ----------------------------------------------------------------------------

/**
 * flat_table: rows sharing the same supplied columns go in one `INSERT … SELECT FROM
 * unnest(…)` per batch of 1,000 (one statement, one plan per column set); omitted columns take
 * their database defaults. Results come back in the order of `bodies`.
 */
async function insertFlat(client: pg.ClientBase, table: Table, bodies: Row[]): Promise<Row[]> {
  const out: Row[] = new Array(bodies.length);
  const groups = new Map<string, number[]>();
  bodies.forEach((b, i) => {
    const sig = table.model.fields
      .filter((f) => b[f.name] !== undefined)
      .map((f) => f.name)
      .join('\u0000');
    const g = groups.get(sig);
    if (g) g.push(i);
    else groups.set(sig, [i]);
  });
  const sel = selectList(table);
  for (const [sig, indexes] of groups) {
    const fields: FieldModel[] = sig === '' ? [] : sig.split('\u0000').map((n) => fieldOf(table.model, n)!);
    for (let start = 0; start < indexes.length; start += BATCH_SIZE) {
      const batch = indexes.slice(start, start + BATCH_SIZE);
      let rows: Row[];
      if (fields.length === 0) {
        rows = [];
        for (const _ of batch) rows.push(...(await run(client, `INSERT INTO ${tableName(table)} DEFAULT VALUES RETURNING ${sel}`, [])));
      } else {
        const params = new Params();
        const arrays = fields.map((f) => `${params.add(batch.map((i) => columnValue(f, bodies[i][f.name])))}::${sqlTypeOf(f)}[]`);
        const cols = fields.map((f) => ident(f.name)).join(', ');
        const text = `INSERT INTO ${tableName(table)} (${cols}) SELECT * FROM unnest(${arrays.join(', ')}) RETURNING ${sel}`;
        try {
          rows = await run(client, text, params.values);
        } catch (e) {
          throw batch.length === 1 ? markIndex(e, batch[0]) : e;
        }
      }
      rows.forEach((r, k) => (out[batch[k]] = rowToRecord(table, r)));
    }
  }
  return out;
}

async function insertJsonb(client: pg.ClientBase, table: Table, bodies: Row[], now: Date): Promise<Row[]> {
  const model = table.model;
  const records = bodies.map((b) => withStoreDefaults(model, b, now));
  // Integer identity keys of jsonb tables come from the store's own sequence.
  const key = model.primaryKey.length === 1 ? fieldOf(model, model.primaryKey[0]) : undefined;
  if (key?.generated === 'identity') {
    const missing = records.filter((r) => r[key.name] === undefined || r[key.name] === null);
    if (missing.length) {
      const params = new Params();
      const seq = storeSequenceSql(params, table);
      const text = `SELECT ${seq} AS v FROM generate_series(1, ${params.add(missing.length)}::int)`;
      const rows = await run(client, text, params.values);
      missing.forEach((r, i) => (r[key.name] = rows[i].v));
    }
  }
  const out: Row[] = [];
  for (let start = 0; start < records.length; start += BATCH_SIZE) {
    const batch = records.slice(start, start + BATCH_SIZE);
    const params = new Params([table.id]);
    const ids = params.add(batch.map((r) => storeRecordId(model, keyOf(model, r))));
    const data = params.add(batch.map((r) => JSON.stringify(r)));
    const text =
      `INSERT INTO ${tableName(table)} ("table_id", "record_id", "data") ` +
      `SELECT $1, u.r, u.d FROM unnest(${ids}::text[], ${data}::jsonb[]) AS u(r, d) RETURNING ${selectList(table)}`;
    try {
      out.push(...toRecords(table, await run(client, text, params.values)));
    } catch (e) {
      throw batch.length === 1 ? markIndex(e, start) : e;
    }
  }
  return out;
}

/** Inserts validated bodies (automatic fields removed); the created records in body order. */
export function insertRecords(client: pg.ClientBase, table: Table, bodies: Row[], now: Date): Promise<Row[]> {
  return table.provider === 'jsonb' ? insertJsonb(client, table, bodies, now) : insertFlat(client, table, bodies);
}

// ---- select ----------------------------------------------------------------------------

/** Records matching `where` (built on `params`), locked for the rest of the transaction. */
export async function selectForUpdate(client: pg.ClientBase, table: Table, where: string, params: Params): Promise<Row[]> {
  const text = `SELECT ${selectList(table)} FROM ${tableName(table)} WHERE ${where} FOR UPDATE`;
  return toRecords(table, await run(client, text, params.values));
}

// ---- update ----------------------------------------------------------------------------

const hasAuto = (table: Table, kind: 'updated_at') => table.model.fields.some((f) => f.auto === kind);

/**
 * Applies one patch to the records with these keys; returns the updated records. jsonb: the
 * patch is merged into `data`; a patch of key fields moves `record_id` (single record only).
 */
export async function updateRecords(client: pg.ClientBase, table: Table, keys: unknown[][], patch: Row, now: Date): Promise<Row[]> {
  const params = new Params();
  const sets: string[] = [];
  if (table.provider === 'jsonb') {
    const stored: Row = {};
    for (const [k, v] of Object.entries(patch)) stored[k] = storedValue(fieldOf(table.model, k)!, v);
    if (hasAuto(table, 'updated_at')) stored[table.model.fields.find((f) => f.auto === 'updated_at')!.name] = now.toISOString();
    sets.push(`"data" = "data" || ${params.add(JSON.stringify(stored))}::jsonb`);
    if (table.model.primaryKey.some((k) => k in patch) && keys.length === 1) {
      const merged = keys[0].map((v, i) => (table.model.primaryKey[i] in patch ? patch[table.model.primaryKey[i]] : v));
      sets.push(`"record_id" = ${params.add(storeRecordId(table.model, merged))}`);
    }
  } else {
    for (const [k, v] of Object.entries(patch)) {
      const f = fieldOf(table.model, k)!;
      sets.push(`${ident(f.name)} = ${params.add(columnValue(f, v))}::${sqlTypeOf(f)}`);
    }
    for (const f of table.model.fields) if (f.auto === 'updated_at') sets.push(`${ident(f.name)} = now()`);
  }
  if (sets.length === 0) {
    return selectForUpdate(client, table, keysCondition(table, keys, params), params);
  }
  const text = `UPDATE ${tableName(table)} SET ${sets.join(', ')} WHERE ${keysCondition(table, keys, params)} RETURNING ${selectList(table)}`;
  return toRecords(table, await run(client, text, params.values));
}

// ---- delete ----------------------------------------------------------------------------

/**
 * Deletes the records with these keys: hard (`DELETE`, foreign-key actions apply) or soft
 * (`is_deleted = true`). Returns the records as they were deleted.
 */
export async function deleteRecords(client: pg.ClientBase, table: Table, keys: unknown[][], hard: boolean, now: Date): Promise<Row[]> {
  if (keys.length === 0) return [];
  if (!hard) return updateRecords(client, table, keys, { is_deleted: true }, now);
  const params = new Params();
  const text = `DELETE FROM ${tableName(table)} WHERE ${keysCondition(table, keys, params)} RETURNING ${selectList(table)}`;
  return toRecords(table, await run(client, text, params.values));
}
