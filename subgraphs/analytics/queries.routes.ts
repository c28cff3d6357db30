// REST routes of analytics queries (seed 2 "Analytics queries", DECISIONS §10): adapters that
// parse the request and call one service function each.
import { listInputFromQuery } from '../core/listing.js';
import { RestResult, type RouteSpec } from '../core/rest.js';
import { executeQuery, listExecutions } from './query/execute.service.js';
import { queryInputFromBody } from './query/query-input.js';
import { createQuery, deleteQuery, getQuery, listQueries, updateQuery } from './query/query.service.js';

type Handler = RouteSpec['handler'];

function route(
  method: RouteSpec['method'],
  path: string,
  permission: string,
  summary: string,
  handler: Handler,
  extra: Partial<RouteSpec> = {},
): RouteSpec {
  return { method, path, scope: 'site', auth: 'required', module: 'analytics', permission, summary, handler, ...extra };
}

const QUERIES = '/apps/:app/analytics/queries/';

const bodyObject = (body: unknown): Record<string, unknown> =>
  body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

export const analyticsRoutes: RouteSpec[] = [
  route('GET', QUERIES, 'analytics:read', 'Saved queries of an app: {status, message, data, total}', async (ctx, i) => {
    const r = await listQueries(ctx, i.params.app, listInputFromQuery(i.query));
    return { status: 'success', message: 'Queries retrieved.', data: r.items, total: r.count };
  }),
  route('POST', QUERIES, 'analytics:write', 'Save a query template (checked by its engine’s grammar)', async (ctx, i) => {
    const data = await createQuery(ctx, i.params.app, queryInputFromBody(i.body));
    return new RestResult(201, { status: 'success', message: 'Query created.', data });
  }),
  route('GET', QUERIES + ':slug/', 'analytics:read', 'One saved query', async (ctx, i) => ({
    status: 'success',
    message: 'Query retrieved.',
    data: await getQuery(ctx, i.params.app, i.params.slug),
  })),
  route('PUT', QUERIES + ':slug/', 'analytics:write', 'Change a saved query; switching to internal clears secret_key', async (ctx, i) => ({
    status: 'success',
    message: 'Query updated.',
    data: await updateQuery(ctx, i.params.app, i.params.slug, queryInputFromBody(i.body)),
  })),
  route(
    'DELETE',
    QUERIES + ':slug/',
    'analytics:write',
    'Delete a saved query and its execution log',
    async (ctx, i) => {
      await deleteQuery(ctx, i.params.app, i.params.slug);
      return { status: 'success', message: 'Query deleted.' };
    },
    { status: 200 },
  ),
  route(
    'POST',
    QUERIES + ':slug/execute/',
    'analytics:execute',
    'Run a saved query with {params}: rows, total, truncated, execution_key',
    (ctx, i) => executeQuery(ctx, i.params.app, i.params.slug, bodyObject(i.body).params),
    { status: 200 },
  ),
  route('GET', QUERIES + ':slug/executions/', 'analytics:read', 'Executions of a query, newest first', async (ctx, i) => {
    const r = await listExecutions(ctx, i.params.app, i.params.slug, listInputFromQuery(i.query));
    return { status: 'success', message: 'Executions retrieved.', data: r.items, total: r.count };
  }),
];
