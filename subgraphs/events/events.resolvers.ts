// Events subgraph resolvers: App.functions.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs } from '../core/graphql/context.js';
import { listFunctions, type FunctionView } from './function.service.js';

export const eventsResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  App: {
    functions: (app: { id: string }, args: PageArgs, { ctx }) =>
      listFunctions(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, (f: FunctionView) => f)),
  },
};
