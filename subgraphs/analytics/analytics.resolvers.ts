// Analytics subgraph resolvers: App.queries.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs } from '../core/graphql/context.js';
import { listQueries, type AnalyticsQueryView } from './query.service.js';

export const analyticsResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  App: {
    queries: (app: { id: string }, args: PageArgs, { ctx }) =>
      listQueries(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, (q: AnalyticsQueryView) => q)),
  },
};
