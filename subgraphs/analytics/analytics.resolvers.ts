// Analytics subgraph resolvers: App.queries, analyticsQuery, analyticsExecutions and the
// mutations, mapping arguments straight to the typed service calls the REST routes use.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { isAppError } from '../core/errors.js';
import { toConnection, type PageArgs } from '../core/graphql/context.js';
import { executeQuery, listExecutions, type Execution } from './query/execute.service.js';
import type { QueryInput } from './query/query-input.js';
import { createQuery, deleteQuery, getQuery, listQueries, updateQuery, type AnalyticsQuery } from './query/query.service.js';

/** A saved query as the `AnalyticsQuery` type (the domain object's own field names). */
export const toGraphQuery = (q: AnalyticsQuery) => ({
  id: q.id,
  name: q.name,
  slug: q.slug,
  description: q.description,
  connectionType: q.connectionType,
  secretKey: q.secretKey,
  queryText: q.queryText,
  tags: q.tags,
  createdAt: q.createdAt,
  updatedAt: q.updatedAt,
  /** The app's slug, for `AnalyticsQuery.executions` (not a schema field). */
  appRef: q.appSlug,
});

/** A query's executions, newest first: `analyticsExecutions` and `AnalyticsQuery.executions`. */
const executions = (ctx: Parameters<typeof listExecutions>[0], app: string, slug: string, args: PageArgs) =>
  listExecutions(ctx, app, slug, { page: args.page, pageSize: args.pageSize }).then((r) => toConnection(r, toGraphExecution));

const toGraphExecution = (e: Execution) => ({
  executionKey: e.executionKey,
  engine: e.engine,
  status: e.status,
  errorCode: e.errorCode,
  rowCount: e.rowCount,
  truncated: e.truncated,
  durationMs: e.durationMs,
  user: e.userId,
  createdAt: e.createdAt,
});

export const analyticsResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  AnalyticsQuery: {
    executions: (q: { appRef: string; slug: string }, args: PageArgs, { ctx }) => executions(ctx, q.appRef, q.slug, args),
  },
  App: {
    queries: (app: { id: string }, args: PageArgs, { ctx }) =>
      listQueries(ctx, app.id, { page: args.page, pageSize: args.pageSize }).then((r) => toConnection(r, toGraphQuery)),
  },
  Query: {
    analyticsQuery: async (_: unknown, args: { app: string; slug: string }, { ctx }) => {
      try {
        return toGraphQuery(await getQuery(ctx, args.app, args.slug));
      } catch (e) {
        if (isAppError(e) && e.status === 404 && e.message.startsWith('No analytics query')) return null;
        throw e;
      }
    },
    analyticsExecutions: (_: unknown, args: { app: string; slug: string } & PageArgs, { ctx }) =>
      executions(ctx, args.app, args.slug, args),
  },
  Mutation: {
    createAnalyticsQuery: async (_: unknown, args: { app: string; input: QueryInput }, { ctx }) =>
      toGraphQuery(await createQuery(ctx, args.app, args.input)),
    updateAnalyticsQuery: async (_: unknown, args: { app: string; slug: string; input: QueryInput }, { ctx }) =>
      toGraphQuery(await updateQuery(ctx, args.app, args.slug, args.input)),
    deleteAnalyticsQuery: async (_: unknown, args: { app: string; slug: string }, { ctx }) =>
      toGraphQuery(await deleteQuery(ctx, args.app, args.slug)),
    executeAnalyticsQuery: async (_: unknown, args: { app: string; slug: string; params?: unknown }, { ctx }) => {
      const r = await executeQuery(ctx, args.app, args.slug, args.params ?? {});
      return { rows: r.rows, total: r.rows.length, truncated: r.truncated, executionKey: r.executionKey };
    },
  },
};
