// Data subgraph resolvers: App.tables.
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs, type SubgraphContext } from '../subgraph-context.js';
import { listTables, type DataTableView } from './table.service.js';

export const dataResolvers: GraphQLResolverMap<SubgraphContext> = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  App: {
    tables: (app: { id: string }, args: PageArgs, { ctx }) =>
      listTables(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, (t: DataTableView) => t)),
  },
};
