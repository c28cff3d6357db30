// REST routes of the data service (records-read); see docs/data-service.md. The adapters parse
// the query string once into the typed inputs (query/record-list-input.ts) the GraphQL
// resolvers build from their arguments, and render the REST envelope of the result.
import type { RouteSpec } from '../core/rest.js';
import { aggregateFromQuery, aggregateRecords, isAggregateQuery } from './query/aggregate.js';
import { hierarchyFromQuery, hierarchyRecords, isHierarchyQuery } from './query/hierarchy.js';
import { recordListFromQuery, recordReadFromQuery } from './query/record-list-input.js';
import { getRecord, listRecords, type RecordList } from './query/record-read.service.js';

type Handler = RouteSpec['handler'];

function route(path: string, summary: string, handler: Handler): RouteSpec {
  return { method: 'GET', path, scope: 'site', auth: 'required', module: 'data', permission: 'data:read', summary, handler };
}

/** The REST list envelope: `{data, total, page, page_size}`, or `{data, total, meta}` for `_start`/`_end`. */
export function listEnvelope(list: RecordList): Record<string, unknown> {
  const { offset, limit } = list.paging;
  if (list.paging.style === 'range') {
    const count = list.records.length;
    return { data: list.records, total: list.total, meta: { offset, limit, count, has_more: offset + count < list.total } };
  }
  return { data: list.records, total: list.total, page: Math.floor(offset / limit) + 1, page_size: limit };
}

export const recordReadRoutes: RouteSpec[] = [
  route(
    '/apps/:app/datatables/:name/data/',
    'Records of a datatable: filters (also across relationships), search, sorting, pagination, populate, aggregation',
    (ctx, i) =>
      isAggregateQuery(i.query)
        ? aggregateRecords(ctx, i.params.app, i.params.name, aggregateFromQuery(i.query))
        : isHierarchyQuery(i.query)
          ? hierarchyRecords(ctx, i.params.app, i.params.name, hierarchyFromQuery(i.query))
          : listRecords(ctx, i.params.app, i.params.name, recordListFromQuery(i.query)).then(listEnvelope),
  ),
  route('/apps/:app/datatables/:name/data/:id/', 'One record by its key', async (ctx, i) => ({
    status: 'success',
    data: await getRecord(ctx, i.params.app, i.params.name, i.params.id, recordReadFromQuery(i.query)),
  })),
];
