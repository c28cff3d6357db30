// REST routes of the data service (records-read); see docs/data-service.md.
import type { RouteSpec } from '../core/rest.js';
import { aggregateRecords, isAggregateQuery } from './query/aggregate.js';
import { hierarchyRecords, isHierarchyQuery } from './query/hierarchy.js';
import { getRecord, listEnvelope, listRecords } from './query/record-read.service.js';

type Handler = RouteSpec['handler'];

function route(path: string, summary: string, handler: Handler): RouteSpec {
  return { method: 'GET', path, scope: 'site', auth: 'required', module: 'data', summary, handler };
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
    data: await getRecord(ctx, i.params.app, i.params.name, i.params.id, i.query),
  })),
];
