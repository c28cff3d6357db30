// Data subgraph resolvers: App.tables, datatable, createSchema, deleteTable (adapters only).
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { toConnection, type PageArgs } from '../core/graphql/context.js';
import type { TableParent } from './records-read.resolvers.js';
import { createSchemaGql, deleteTableGql, findTable, listTables, type DataTableView } from './table/table-graphql.js';

interface TableArgs {
  app: string;
  name: string;
}

/** A table view with the app it was read through, for `DataTable.records`. */
const withApp =
  (app: string) =>
  (t: DataTableView): DataTableView & TableParent => ({ ...t, app });

export const dataResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  App: {
    tables: (app: { id: string }, args: PageArgs, { ctx }) => listTables(ctx, app.id, args).then((r) => toConnection(r, withApp(app.id))),
  },
  // Explicit: the fast path's executor (graphql-jit) does not call a function found under a
  // field's name, as graphql-js's default resolver does.
  DataTable: {
    rowCount: (t: DataTableView) => t.rowCount(),
  },
  Query: {
    datatable: (_: unknown, a: TableArgs, { ctx }) => findTable(ctx, a.app, a.name).then((t) => t && withApp(a.app)(t)),
  },
  Mutation: {
    createSchema: (_: unknown, a: { app: string; package: unknown; allowDataLoss?: boolean | null }, { ctx }) =>
      createSchemaGql(ctx, a.app, a.package, a.allowDataLoss).then((ts) => ts.map(withApp(a.app))),
    deleteTable: (_: unknown, a: TableArgs & { force?: boolean | null }, { ctx }) =>
      deleteTableGql(ctx, a.app, a.name, a.force).then(withApp(a.app)),
  },
};
