// REST routes of record writes (docs/data-service.md "Records", "Envelopes"): adapters that
// parse the query string and body into the typed write inputs (records/write-params.ts) the
// GraphQL mutations build from their arguments, call one service function each and render the
// REST envelope.
import { RestResult, type RouteSpec } from '../core/rest.js';
import { param, type Query } from '../core/listing.js';
import { dataErrors } from './data-errors.js';
import { filterEntries } from './query/filter.js';
import { parseDeleted } from './query/list-params.js';
import {
  deleteFlagsFromQuery,
  deleteOptionsOf,
  idList,
  parseFilterParam,
  recordsFromBody,
  uniqueFieldsFromQuery,
} from './records/write-params.js';
import { upsertRecords } from './records/record-upsert.service.js';
import {
  createRecords,
  deleteByIds,
  deleteRecord,
  deleteWhere,
  patchRecord,
  patchRecords,
  patchWhere,
} from './records/record-write.service.js';

type Handler = RouteSpec['handler'];

// Every GET of the module needs data:read, every other method data:write (the permission matrix checks both).
function route(method: RouteSpec['method'], path: string, summary: string, handler: Handler, extra: Partial<RouteSpec> = {}): RouteSpec {
  return {
    method,
    path,
    scope: 'site',
    auth: 'required',
    module: 'data',
    permission: method === 'GET' ? 'data:read' : 'data:write',
    summary,
    handler,
    ...extra,
  };
}

const DATA = '/apps/:app/datatables/:name/data/';

/** Filters of a PATCH/DELETE: `filter` JSON and plain filter parameters together. */
function selection(query: Query): Array<[string, unknown]> {
  const fromJson = query.filter !== undefined ? parseFilterParam(param(query, 'filter')) : [];
  return [...fromJson, ...filterEntries(query)];
}

const ok = (message: string, data: unknown, extra: Record<string, unknown> = {}) => ({ status: 'success', message, data, ...extra });

export const recordWriteRoutes: RouteSpec[] = [
  route('POST', DATA, 'Create a record (object) or several (array, all or nothing)', async (ctx, i) => {
    const { records, many } = await createRecords(ctx, i.params.app, i.params.name, recordsFromBody(i.body));
    return many ? ok(`${records.length} records created successfully.`, records) : ok('Record created successfully.', records[0]);
  }),
  route('POST', DATA + 'upsert/', 'Update the record matching `unique_fields`, else create it (object or array)', async (ctx, i) => {
    const r = await upsertRecords(ctx, i.params.app, i.params.name, {
      ...recordsFromBody(i.body),
      uniqueFields: uniqueFieldsFromQuery(i.query),
    });
    const anyCreated = r.created.some(Boolean);
    const body = r.many
      ? ok(`${r.records.length} records upserted successfully.`, r.records, { created: r.created })
      : ok(r.created[0] ? 'Record created successfully.' : 'Record updated successfully.', r.records[0], { created: r.created[0] });
    return new RestResult(anyCreated ? 201 : 200, body);
  }),
  route('PATCH', DATA + ':id/', 'Update fields of one record', async (ctx, i) => {
    const { record } = await patchRecord(ctx, i.params.app, i.params.name, i.params.id, i.body, { deleted: parseDeleted(i.query) });
    return ok('Record updated successfully.', record);
  }),
  route('PATCH', DATA, 'Update records: an array (each with its key) or an object applied to the filtered records', async (ctx, i) => {
    const opts = { deleted: parseDeleted(i.query) };
    if (Array.isArray(i.body)) {
      const { records } = await patchRecords(ctx, i.params.app, i.params.name, i.body, opts);
      return ok(`${records.length} records updated successfully.`, records);
    }
    const { records, total } = await patchWhere(ctx, i.params.app, i.params.name, selection(i.query), i.body, opts);
    return ok(`${total} records updated successfully.`, records, { total });
  }),
  route('DELETE', DATA + ':id/', 'Delete one record (soft when the table has is_deleted, unless hard_delete)', async (ctx, i) => {
    await deleteRecord(ctx, i.params.app, i.params.name, i.params.id, deleteOptionsOf(deleteFlagsFromQuery(i.query)));
    return undefined;
  }),
  route(
    'DELETE',
    DATA,
    'Delete records by `ids` or by `filter`',
    async (ctx, i) => {
      const opts = deleteOptionsOf(deleteFlagsFromQuery(i.query));
      if (i.query.ids !== undefined) {
        const r = await deleteByIds(ctx, i.params.app, i.params.name, idList(i.query), opts);
        return ok(`${r.deleted} records deleted successfully.`, undefined, { deleted: r.deleted, ids: r.ids });
      }
      const entries = selection(i.query);
      if (entries.length === 0) throw dataErrors.invalidParam('filter', 'Give `ids` or a `filter` to delete records.');
      const r = await deleteWhere(ctx, i.params.app, i.params.name, entries, opts);
      return ok(`${r.deleted} records deleted successfully.`, undefined, { deleted: r.deleted });
    },
    { status: 200 },
  ),
];
