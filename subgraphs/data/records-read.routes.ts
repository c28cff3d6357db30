// REST routes of the data service (records-read); see docs/data-service.md. A record list still
// hands the query to the service: its filters are query parameters named after the table's
// fields (and `filter` JSON), which only the table's model, loaded by the service, can parse.
import type { RouteSpec } from '../core/rest.js';
import { aggregateRecords, isAggregateQuery } from './query/aggregate.js';
import { parseDeleted } from './query/list-params.js';
import { hierarchyRecords, isHierarchyQuery } from './query/hierarchy.js';
import { getRecord, listEnvelope, listRecords } from './query/record-read.service.js';

type Handler = RouteSpec['handler'];

function route(path: string, summary: string, handler: Handler): RouteSpec {
  return { method: 'GET', path, scope: 'site', auth: 'required', module: 'data', permission: 'data:read', summary, handler };
}

export const recordReadRoutes: RouteSpec[] = [
  route(
    '/apps/:app/datatables/:name/data/',
    'Records of a datatable: filters (also across relationships), search, sorting, pagination, populate, aggregation',
    (ctx, i) =>
      isAggregateQuery(i.query)
        ? aggregateRecords(ctx, i.params.app, i.params.name, i.query)
        : isHierarchyQuery(i.query)
          ? hierarchyRecords(ctx, i.params.app, i.params.name, i.query)
          : listRecords(ctx, i.params.app, i.params.name, i.query).then(listEnvelope),
  ),
  route('/apps/:app/datatables/:name/data/:id/', 'One record by its key', async (ctx, i) => ({
    status: 'success',
    data: await getRecord(ctx, i.params.app, i.params.name, i.params.id, parseDeleted(i.query), i.query),
  })),
];
