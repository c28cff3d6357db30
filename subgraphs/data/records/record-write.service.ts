// Record writes (docs/data-service.md "Records"): create, patch and delete, single and bulk,
// for both providers. Each request is one transaction; bodies are validated against the
// table's schema first; record events fire after commit. Transport-neutral: REST routes and
// GraphQL mutations call these with the typed inputs of write-params.ts (records, filter
// entries, options), never a request body or query string.
import type { RequestContext } from '../../core/context.js';
import { parseRecordId, recordIdOf } from '../model/codec.js';
import type { DataTable } from '../model/table-model.js';
import { dataErrors } from '../data-errors.js';
import { buildWhere, parseFilters } from '../query/filter.js';
import { deletedCondition } from '../query/filter-sql.js';
import { Params } from '../sql.js';
import { loadTable } from '../table/table-access.js';
import { keyOf, keysCondition, type Row } from './record-sql.js';
import { EventLog, inTransaction } from './record-tx.js';
import { validateRecords } from './record-validator.js';
import type { DeleteOptions, RecordsInput, SelectOptions } from './write-params.js';
import { deleteRecords, insertRecords, markIndex, selectForUpdate, updateRecords } from './record-write.repository.js';

export type { Row };

export type { DeleteOptions, SelectOptions };

export const MAX_BULK = 10_000;

/** A list of several records: not empty, at most MAX_BULK. */
function bodyList(body: readonly unknown[]): readonly unknown[] {
  if (body.length === 0) throw dataErrors.validation({ non_field_errors: ['The list is empty.'] });
  if (body.length > MAX_BULK) throw dataErrors.validation({ non_field_errors: [`At most ${MAX_BULK} records per request.`] });
  return body;
}

/** `where` for rows with these keys, as the selection options allow. */
function keyWhere(table: DataTable, keys: unknown[][], opts: SelectOptions, params: Params): string {
  const del = deletedCondition(table, opts.deleted);
  const where = keysCondition(table, keys, params);
  return del ? `${where} AND ${del}` : where;
}

/** Key values of a path id; 404 when it cannot be a key of this table. */
function pathKey(table: DataTable, id: string): unknown[] {
  const key = parseRecordId(table.model, id);
  if (!key) throw dataErrors.recordNotFound(id);
  return key;
}

/** The fields of a patch that are not the key (the key selects the record). */
function withoutKey(table: DataTable, body: Row): Row {
  const out = { ...body };
  for (const k of table.model.primaryKey) delete out[k];
  return out;
}

/** `POST data/`: one record or several (all or nothing), in the order given. */
export async function createRecords(
  ctx: RequestContext,
  appRef: string,
  name: string,
  input: RecordsInput,
): Promise<{ table: DataTable; records: Row[]; many: boolean }> {
  const { app, table } = await loadTable(ctx, appRef, name, 'data:write');
  const many = input.many;
  const items = many ? bodyList(input.records) : input.records.slice(0, 1);
  const bodies = validateRecords(ctx.platform, table, [...items], 'create', many);
  const log = new EventLog(app, table);
  const records = await inTransaction(
    ctx,
    table,
    'insert',
    log,
    async (client, now) => {
      const out = await insertRecords(client, table, bodies, now);
      log.created(out);
      return out;
    },
    many,
  );
  return { table, records, many };
}

/** Patches one locked record; 404 when the selection does not see it. */
async function patchOne(
  client: Parameters<typeof selectForUpdate>[0],
  table: DataTable,
  key: unknown[],
  patch: Row,
  opts: SelectOptions,
  now: Date,
  log: EventLog,
  id: string,
): Promise<Row> {
  const params = new Params();
  const [previous] = await selectForUpdate(client, table, keyWhere(table, [key], opts, params), params);
  if (!previous) throw dataErrors.recordNotFound(id);
  const [record] = await updateRecords(client, table, [key], patch, now);
  log.updated(record, previous);
  return record;
}

/** `PATCH data/{id}/`: the given fields (`fields`, checked against the schema) of one record. */
export async function patchRecord(
  ctx: RequestContext,
  appRef: string,
  name: string,
  id: string,
  fields: unknown,
  opts: SelectOptions,
): Promise<{ table: DataTable; record: Row }> {
  const { app, table } = await loadTable(ctx, appRef, name, 'data:write');
  const key = pathKey(table, id);
  const [patch] = validateRecords(ctx.platform, table, [fields], 'patch', false);
  const log = new EventLog(app, table);
  const record = await inTransaction(ctx, table, 'update', log, (client, now) => patchOne(client, table, key, patch, opts, now, log, id));
  return { table, record };
}

/** `PATCH data/` with an array: each item carries its key; all or nothing. */
export async function patchRecords(
  ctx: RequestContext,
  appRef: string,
  name: string,
  list: readonly unknown[],
  opts: SelectOptions,
): Promise<{ table: DataTable; records: Row[] }> {
  const { app, table } = await loadTable(ctx, appRef, name, 'data:write');
  const items = validateRecords(ctx.platform, table, [...bodyList(list)], 'patch', true);
  const missing: Record<string, string[]> = {};
  items.forEach((item, i) => {
    for (const k of table.model.primaryKey)
      if (item[k] === undefined || item[k] === null) missing[`[${i}].${k}`] = ['The key is required to update a record.'];
  });
  if (Object.keys(missing).length) throw dataErrors.validation(missing);
  const log = new EventLog(app, table);
  const records = await inTransaction(
    ctx,
    table,
    'update',
    log,
    async (client, now) => {
      const out: Row[] = [];
      for (let i = 0; i < items.length; i++) {
        const key = keyOf(table.model, items[i]);
        const id = recordIdOf(table.model, items[i]);
        try {
          out.push(await patchOne(client, table, key, withoutKey(table, items[i]), opts, now, log, id));
        } catch (e) {
          throw markIndex(e, i);
        }
      }
      return out;
    },
    true,
  );
  return { table, records };
}

/** Filter entries → WHERE; at least one filter, so a stray body never touches a whole table. */
function filterWhere(
  table: DataTable,
  entries: ReadonlyArray<readonly [string, unknown]>,
  opts: SelectOptions,
  params: Params,
  param: string,
): string {
  if (entries.length === 0) throw dataErrors.invalidParam(param, 'At least one filter is required.');
  return buildWhere(table, parseFilters(table, entries), params, { deleted: opts.deleted });
}

/** `PATCH data/` with an object and filters: the same fields on every matching record. */
export async function patchWhere(
  ctx: RequestContext,
  appRef: string,
  name: string,
  entries: ReadonlyArray<readonly [string, unknown]>,
  fields: unknown,
  opts: SelectOptions,
): Promise<{ table: DataTable; records: Row[]; total: number }> {
  const { app, table } = await loadTable(ctx, appRef, name, 'data:write');
  const params = new Params();
  const where = filterWhere(table, entries, opts, params, 'filter');
  const [patch] = validateRecords(ctx.platform, table, [fields], 'patch', false);
  // One key value for many records is a conflict at best (and would desync the jsonb store's record_id).
  const keyed = table.model.primaryKey.filter((k) => k in patch);
  if (keyed.length) throw dataErrors.validation(Object.fromEntries(keyed.map((k) => [k, ['The key cannot be set by a filtered update.']])));
  const log = new EventLog(app, table);
  const records = await inTransaction(ctx, table, 'update', log, async (client, now) => {
    const previous = await selectForUpdate(client, table, where, params);
    if (previous.length === 0) return [];
    const updated = await updateRecords(
      client,
      table,
      previous.map((r) => keyOf(table.model, r)),
      patch,
      now,
    );
    // RETURNING has no order: answer (and fire) in the order the rows were selected.
    const byId = new Map(updated.map((r) => [recordIdOf(table.model, r), r]));
    const before = new Map(previous.map((r) => [recordIdOf(table.model, r), r]));
    const ordered = previous.map((p) => byId.get(recordIdOf(table.model, p))).filter((r): r is Row => !!r);
    for (const r of ordered) log.updated(r, before.get(recordIdOf(table.model, r)) ?? r);
    if (ordered.length < updated.length) for (const r of updated) if (!ordered.includes(r)) ordered.push(r);
    return ordered;
  });
  return { table, records, total: records.length };
}

/** Soft delete applies only to tables with `is_deleted`; elsewhere every delete is hard. */
const isHard = (table: DataTable, opts: DeleteOptions) => opts.hard || !table.model.softDelete;

/** `DELETE data/{id}/`; 404 when the selection does not see the record. */
/** Deletes one record; answers it as the delete left it (soft: `is_deleted` true; hard: as it was). */
export async function deleteRecord(
  ctx: RequestContext,
  appRef: string,
  name: string,
  id: string,
  opts: DeleteOptions,
): Promise<{ table: DataTable; record: Row }> {
  const { app, table } = await loadTable(ctx, appRef, name, 'data:write');
  const key = pathKey(table, id);
  const hard = isHard(table, opts);
  const log = new EventLog(app, table);
  const record = await inTransaction(ctx, table, 'delete', log, async (client, now) => {
    const params = new Params();
    const found = await selectForUpdate(client, table, keyWhere(table, [key], opts, params), params);
    if (found.length === 0) throw dataErrors.recordNotFound(id);
    const deleted = await deleteRecords(client, table, [key], hard, now);
    log.deleted(deleted, hard);
    return deleted[0];
  });
  return { table, record };
}

async function deleteSelected(
  ctx: RequestContext,
  table: DataTable,
  log: EventLog,
  hard: boolean,
  select: (client: Parameters<typeof selectForUpdate>[0]) => Promise<Row[]>,
) {
  return inTransaction(ctx, table, 'delete', log, async (client, now) => {
    const found = await select(client);
    const deleted = await deleteRecords(
      client,
      table,
      found.map((r) => keyOf(table.model, r)),
      hard,
      now,
    );
    log.deleted(deleted, hard);
    return deleted;
  });
}

/** `DELETE data/?ids=…`: ids that are not (visible) records are skipped. */
export async function deleteByIds(
  ctx: RequestContext,
  appRef: string,
  name: string,
  ids: string[],
  opts: DeleteOptions,
): Promise<{ deleted: number; ids: string[] }> {
  const { app, table } = await loadTable(ctx, appRef, name, 'data:write');
  if (ids.length === 0) throw dataErrors.invalidParam('ids', 'At least one id is required.');
  if (ids.length > MAX_BULK) throw dataErrors.invalidParam('ids', `At most ${MAX_BULK} ids per request.`);
  const keys = ids.map((id) => parseRecordId(table.model, id)).filter((k): k is unknown[] => k !== null);
  const hard = isHard(table, opts);
  const log = new EventLog(app, table);
  const deleted = keys.length
    ? await deleteSelected(ctx, table, log, hard, (client) => {
        const params = new Params();
        return selectForUpdate(client, table, keyWhere(table, keys, opts, params), params);
      })
    : [];
  return { deleted: deleted.length, ids: deleted.map((r) => recordIdOf(table.model, r)) };
}

/** `DELETE data/?filter=…` (or GraphQL `deleteRecords(filter:)`). */
export async function deleteWhere(
  ctx: RequestContext,
  appRef: string,
  name: string,
  entries: ReadonlyArray<readonly [string, unknown]>,
  opts: DeleteOptions,
): Promise<{ deleted: number; ids: string[] }> {
  const { app, table } = await loadTable(ctx, appRef, name, 'data:write');
  const params = new Params();
  const where = filterWhere(table, entries, opts, params, 'filter');
  const hard = isHard(table, opts);
  const log = new EventLog(app, table);
  const deleted = await deleteSelected(ctx, table, log, hard, (client) => selectForUpdate(client, table, where, params));
  return { deleted: deleted.length, ids: deleted.map((r) => recordIdOf(table.model, r)) };
}
