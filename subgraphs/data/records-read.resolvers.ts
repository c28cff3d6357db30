// Data subgraph resolvers (records-read): `records` and `record` (DECISIONS §11), mapping their
// arguments straight to the typed read inputs the REST routes parse their query into
// (query/record-list-input.ts), so both transports answer alike.
import type { RequestContext } from '../core/context.js';
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { toGraphRecord } from './query/graph-record.js';
import { deletedModeOf, type DeletedFlags } from './query/list-params.js';
import type { RecordListInput } from './query/record-list-input.js';
import { findRecord, listRecords } from './query/record-read.service.js';
import { hierarchyRecords } from './query/hierarchy.js';

interface RecordsArgs extends DeletedFlags {
  app: string;
  table: string;
  filter?: unknown;
  sort?: string[] | null;
  search?: string | null;
  page?: number | null;
  pageSize?: number | null;
}

function recordsInput(args: RecordsArgs): RecordListInput {
  return {
    where: args.filter ?? undefined,
    // `sort: ["-views", "title"]` is the ordering `-views,title`.
    ordering: args.sort != null && args.sort.length > 0 ? args.sort.join(',') : undefined,
    search: args.search,
    page: args.page,
    pageSize: args.pageSize,
    deleted: deletedModeOf(args),
  };
}

/** A page of records as a connection: `Query.records` and `DataTable.records`. */
async function recordsConnection(ctx: RequestContext, args: RecordsArgs) {
  const list = await listRecords(ctx, args.app, args.table, recordsInput(args));
  const { offset, limit } = list.paging;
  return {
    items: list.records.map((r) => toGraphRecord(list.table, r)),
    total: list.total,
    page: Math.floor(offset / limit) + 1,
    pageSize: limit,
  };
}

interface HierarchyArgs extends DeletedFlags {
  format: string;
  include?: string | null;
  depth?: number | null;
  filter?: unknown;
  page?: number | null;
  pageSize?: number | null;
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
    hierarchy: async (t: TableParent, args: HierarchyArgs, { ctx }) => {
      const answer = await hierarchyRecords(ctx, t.app, t.name, {
        format: args.format,
        include: args.include,
        depth: args.depth,
        where: args.filter ?? undefined,
        page: args.page,
        pageSize: args.pageSize,
        deleted: deletedModeOf(args),
      });
      return answer.data;
    },
  },
  Query: {
    records: (_: unknown, args: RecordsArgs, { ctx }) => recordsConnection(ctx, args),
    record: async (_: unknown, args: { app: string; table: string; id: string; includeDeleted?: boolean | null }, { ctx }) => {
      const { table, record } = await findRecord(ctx, args.app, args.table, args.id, { deleted: deletedModeOf(args) });
      return record ? toGraphRecord(table, record) : null;
    },
  },
};
