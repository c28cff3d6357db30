// Analytics subgraph resolvers: App.queries.
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { DateTimeResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs, type SubgraphContext } from '../subgraph-context.js';
import { listQueries, type AnalyticsQueryView } from './query.service.js';

export const analyticsResolvers: GraphQLResolverMap<SubgraphContext> = {
  DateTime: DateTimeResolver,
  App: {
    queries: (app: { id: string }, args: PageArgs, { ctx }) =>
      listQueries(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, (q: AnalyticsQueryView) => q)),
  },
};
