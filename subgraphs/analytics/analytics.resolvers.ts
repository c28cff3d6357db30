// Analytics subgraph resolvers: App.queries.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs } from '../core/graphql/context.js';
import { parsePage } from '../core/listing.js';
import { listQueries, type AnalyticsQueryView } from './query/query.service.js';

/** The REST view under GraphQL's field names. */
export const toGraphQuery = (q: AnalyticsQueryView) => ({
  id: q.id,
  name: q.name,
  slug: q.slug,
  description: q.description,
  connectionType: q.connection_type,
  secretKey: q.secret_key,
  queryText: q.query_text,
  tags: q.tags,
  createdAt: q.created_at,
  updatedAt: q.updated_at,
});

export const analyticsResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  App: {
    queries: (app: { id: string }, args: PageArgs, { ctx }) =>
      listQueries(ctx, app.id, parsePage(pageQuery(args))).then((r) =>
        toConnection({ page: r.page, count: r.total, items: r.items }, toGraphQuery),
      ),
  },
};
