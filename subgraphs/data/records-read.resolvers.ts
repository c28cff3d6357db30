// Data subgraph resolvers (records-read): `records` and `record` (DECISIONS §11). `record` maps
// its arguments to the typed read; `records` still becomes the REST query the list service
// parses against the table's model (filters are named after the table's fields), so both
// transports answer alike.
import type { RequestContext } from '../core/context.js';
import type { ResolverMap } from '../core/graphql/resolvers.js';
import type { Query } from '../core/listing.js';
import { toGraphRecord } from './query/graph-record.js';
import { findRecord, listRecords } from './query/record-read.service.js';

interface RecordsArgs {
  app: string;
  table: string;
  filter?: unknown;
  sort?: string[] | null;
  search?: string | null;
  page?: number | null;
  pageSize?: number | null;
  includeDeleted?: boolean | null;
  onlyDeleted?: boolean | null;
}

function recordsQuery(args: RecordsArgs): Query {
  const q: Query = {};
  if (args.filter != null) q.filter = JSON.stringify(args.filter);
  if (args.sort != null && args.sort.length > 0) q.ordering = args.sort.join(',');
  if (args.search != null) q.search = args.search;
  if (args.page != null) q.page = String(args.page);
  if (args.pageSize != null) q.page_size = String(args.pageSize);
  if (args.includeDeleted) q.include_deleted = 'true';
  if (args.onlyDeleted) q.only_deleted = 'true';
  return q;
}

/** A page of records as a connection: `Query.records` and `DataTable.records`. */
async function recordsConnection(ctx: RequestContext, args: RecordsArgs) {
  const list = await listRecords(ctx, args.app, args.table, recordsQuery(args));
  const { offset, limit } = list.paging;
  return {
    items: list.records.map((r) => toGraphRecord(list.table, r)),
    total: list.total,
    page: Math.floor(offset / limit) + 1,
    pageSize: limit,
  };
}

/** A DataTable as the data resolvers answer it: with the app (slug or UUID) it was read through. */
export interface TableParent {
  app: string;
  name: string;
}

export const recordReadResolvers: ResolverMap = {
  DataTable: {
    records: (t: TableParent, args: Omit<RecordsArgs, 'app' | 'table'>, { ctx }) =>
      recordsConnection(ctx, { ...args, app: t.app, table: t.name }),
  },
  Query: {
    records: (_: unknown, args: RecordsArgs, { ctx }) => recordsConnection(ctx, args),
    record: async (_: unknown, args: { app: string; table: string; id: string; includeDeleted?: boolean | null }, { ctx }) => {
      const { table, record } = await findRecord(ctx, args.app, args.table, args.id, args.includeDeleted ? 'include' : 'exclude');
      return record ? toGraphRecord(table, record) : null;
    },
  },
};
