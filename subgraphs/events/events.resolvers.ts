// Events subgraph resolvers: App.functions.
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { DateTimeResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs, type SubgraphContext } from '../subgraph-context.js';
import { listFunctions, type FunctionView } from './function.service.js';

export const eventsResolvers: GraphQLResolverMap<SubgraphContext> = {
  DateTime: DateTimeResolver,
  App: {
    functions: (app: { id: string }, args: PageArgs, { ctx }) =>
      listFunctions(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, (f: FunctionView) => f)),
  },
};
