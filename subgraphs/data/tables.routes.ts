// REST routes of the data service (tables); see docs/data-service.md "Tables". Adapters: parse the
// query once, call one service, render the REST view (snake_case, row counts).
import { listInputFromQuery, parseBool } from '../core/listing.js';
import { RestResult, type RouteSpec } from '../core/rest.js';
import { createSchema, deleteTable, getTable, listTables, tableViews } from './table/table.service.js';

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

const plural = (n: number) => `table${n === 1 ? '' : 's'}`;

export const datatableRoutes: RouteSpec[] = [
  route('GET', TABLES, 'Datatables of an app: {data, total, page, page_size}', async (ctx, i) => {
    const r = await listTables(ctx, i.params.app, listInputFromQuery(i.query));
    return { data: await tableViews(ctx, r.tables), total: r.count, page: r.page.page, page_size: r.page.pageSize };
  }),
  // 201 when a table was created, 200 when all existed (migrated).
  route('POST', TABLES + 'create_schema/', 'Create or migrate tables from a Data Package, all or nothing', async (ctx, i) => {
    const r = await createSchema(ctx, i.params.app, i.body, { allowDataLoss: parseBool(i.query, 'allow_data_loss') });
    const message = [
      r.created && `Created ${r.created} ${plural(r.created)}.`,
      r.migrated && `Updated ${r.migrated} ${plural(r.migrated)}.`,
    ]
      .filter(Boolean)
      .join(' ');
    return new RestResult(r.created > 0 ? 201 : 200, { status: 'success', message, data: await tableViews(ctx, r.tables) });
  }),
  route('GET', TABLES + ':name/', 'One datatable with its schema and exact row_count', (ctx, i) =>
    getTable(ctx, i.params.app, i.params.name),
  ),
  route('DELETE', TABLES + ':name/', 'Drop a datatable (force=true also drops foreign keys pointing at it)', (ctx, i) =>
    deleteTable(ctx, i.params.app, i.params.name, { force: parseBool(i.query, 'force') }),
  ),
];
