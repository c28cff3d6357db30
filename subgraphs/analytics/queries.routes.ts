// REST routes of analytics queries (seed 2 "Analytics queries", DECISIONS §10): adapters that
// parse the request, call one service function each and render the seed's snake_case views
// inside the `{status, message, data}` envelope.
import type { RequestContext } from '../core/context.js';
import { listInputFromQuery } from '../core/listing.js';
import { RestResult, type RouteSpec } from '../core/rest.js';
import { executeQuery, listExecutions, type ExecuteResult, type Execution } from './query/execute.service.js';
import { queryInputFromBody } from './query/query-input.js';
import { createQuery, deleteQuery, getQuery, listQueries, updateQuery, type AnalyticsQuery } from './query/query.service.js';

/** A saved query as REST answers it (seed 2 "Analytics query"). */
export const toQueryRest = (q: AnalyticsQuery) => ({
  id: q.id,
  name: q.name,
  slug: q.slug,
  description: q.description,
  app: q.appSlug,
  connection_type: q.connectionType,
  secret_key: q.secretKey,
  query_text: q.queryText,
  tags: q.tags,
  created_at: q.createdAt.toISOString(),
  updated_at: q.updatedAt.toISOString(),
});

/** One logged run as REST answers it. */
export const toExecutionRest = (e: Execution) => ({
  execution_key: e.executionKey,
  engine: e.engine,
  status: e.status,
  error_code: e.errorCode,
  row_count: e.rowCount,
  truncated: e.truncated,
  duration_ms: e.durationMs,
  user: e.userId,
  created_at: e.createdAt.toISOString(),
});

/** The envelope of an execution: `{status, message, data, total, truncated, execution_key}`. */
export const toExecuteRest = (ctx: RequestContext, r: ExecuteResult) => ({
  status: 'success',
  message: r.truncated ? `Query executed; the result was cut at ${ctx.platform.config.analyticsMaxRows} rows.` : 'Query executed.',
  data: r.rows,
  total: r.rows.length,
  truncated: r.truncated,
  execution_key: r.executionKey,
});

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
    return { status: 'success', message: 'Queries retrieved.', data: r.items.map(toQueryRest), total: r.count };
  }),
  route('POST', QUERIES, 'analytics:write', 'Save a query template (checked by its engine’s grammar)', async (ctx, i) => {
    const data = toQueryRest(await createQuery(ctx, i.params.app, queryInputFromBody(i.body)));
    return new RestResult(201, { status: 'success', message: 'Query created.', data });
  }),
  route('GET', QUERIES + ':slug/', 'analytics:read', 'One saved query', async (ctx, i) => ({
    status: 'success',
    message: 'Query retrieved.',
    data: toQueryRest(await getQuery(ctx, i.params.app, i.params.slug)),
  })),
  route('PUT', QUERIES + ':slug/', 'analytics:write', 'Change a saved query; switching to internal clears secret_key', async (ctx, i) => ({
    status: 'success',
    message: 'Query updated.',
    data: toQueryRest(await updateQuery(ctx, i.params.app, i.params.slug, queryInputFromBody(i.body))),
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
    async (ctx, i) => toExecuteRest(ctx, await executeQuery(ctx, i.params.app, i.params.slug, bodyObject(i.body).params)),
    { status: 200 },
  ),
  route('GET', QUERIES + ':slug/executions/', 'analytics:read', 'Executions of a query, newest first', async (ctx, i) => {
    const r = await listExecutions(ctx, i.params.app, i.params.slug, listInputFromQuery(i.query));
    return { status: 'success', message: 'Executions retrieved.', data: r.items.map(toExecutionRest), total: r.count };
  }),
];
