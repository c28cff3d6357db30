// REST routes of the data service (tables); see docs/data-service.md "Tables".
import { RestResult, type RouteSpec } from '../core/rest.js';
import { createSchema, deleteTable, getTable, listTablesRest } from './table/table.service.js';

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

const TABLES = '/apps/:app/datatables/';

export const datatableRoutes: RouteSpec[] = [
  route('GET', TABLES, 'Datatables of an app: {data, total, page, page_size}', (ctx, i) => listTablesRest(ctx, i.params.app, i.query)),
  route('POST', TABLES + 'create_schema/', 'Create or migrate tables from a Data Package, all or nothing', async (ctx, i) => {
    const r = await createSchema(ctx, i.params.app, i.body, i.query);
    return new RestResult(r.status, r.body);
  }),
  route('GET', TABLES + ':name/', 'One datatable with its schema and exact row_count', (ctx, i) =>
    getTable(ctx, i.params.app, i.params.name),
  ),
  route('DELETE', TABLES + ':name/', 'Drop a datatable (force=true also drops foreign keys pointing at it)', (ctx, i) =>
    deleteTable(ctx, i.params.app, i.params.name, i.query),
  ),
];
