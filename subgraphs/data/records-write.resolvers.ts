// Data subgraph resolvers (records-write): the write mutations of DECISIONS §11, calling the
// same services as the REST routes, so both transports validate and answer alike.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { dataErrors } from './data-errors.js';
import type { DeletedMode } from './query/filter.js';
import { toGraphRecord } from './query/graph-record.js';
import { upsertRecords } from './records/record-upsert.service.js';
import { parseFilterParam } from './records/write-params.js';
import {
  createRecords,
  deleteByIds,
  deleteRecord,
  deleteWhere,
  patchRecord,
  patchRecords,
  patchWhere,
} from './records/record-write.service.js';

interface TableArgs {
  app: string;
  table: string;
}
interface DeletedArgs {
  includeDeleted?: boolean | null;
  onlyDeleted?: boolean | null;
  hardDelete?: boolean | null;
}

function deletedMode(args: DeletedArgs): DeletedMode {
  if (args.onlyDeleted) return 'only';
  if (args.includeDeleted) return 'include';
  // As on REST: a hard delete without flags also reaches soft-deleted records.
  return args.hardDelete && args.includeDeleted == null && args.onlyDeleted == null ? 'include' : 'exclude';
}

export const recordWriteResolvers: ResolverMap = {
  Mutation: {
    createRecord: async (_: unknown, a: TableArgs & { data: unknown }, { ctx }) => {
      if (Array.isArray(a.data)) throw dataErrors.validation({ data: ['Use createRecords for a list.'] });
      const { table, records } = await createRecords(ctx, a.app, a.table, a.data);
      return toGraphRecord(table, records[0]);
    },
    createRecords: async (_: unknown, a: TableArgs & { data: unknown[] }, { ctx }) => {
      const { table, records } = await createRecords(ctx, a.app, a.table, a.data);
      return records.map((r) => toGraphRecord(table, r));
    },
    upsertRecord: async (_: unknown, a: TableArgs & { data: unknown; uniqueFields: string[] }, { ctx }) => {
      if (Array.isArray(a.data)) throw dataErrors.validation({ data: ['Must be one record.'] });
      const r = await upsertRecords(ctx, a.app, a.table, a.data, a.uniqueFields);
      return { record: toGraphRecord(r.table, r.records[0]), created: r.created[0] };
    },
    updateRecord: async (_: unknown, a: TableArgs & DeletedArgs & { id: string; data: unknown }, { ctx }) => {
      const { table, record } = await patchRecord(ctx, a.app, a.table, a.id, a.data, { deleted: deletedMode(a) });
      return toGraphRecord(table, record);
    },
    updateRecords: async (_: unknown, a: TableArgs & DeletedArgs & { data: unknown[] }, { ctx }) => {
      const { table, records } = await patchRecords(ctx, a.app, a.table, a.data, { deleted: deletedMode(a) });
      return records.map((r) => toGraphRecord(table, r));
    },
    updateRecordsWhere: async (_: unknown, a: TableArgs & DeletedArgs & { filter: unknown; data: unknown }, { ctx }) => {
      const entries = parseFilterParam(a.filter);
      const { table, records, total } = await patchWhere(ctx, a.app, a.table, entries, a.data, { deleted: deletedMode(a) });
      return { items: records.map((r) => toGraphRecord(table, r)), total };
    },
    deleteRecord: async (_: unknown, a: TableArgs & DeletedArgs & { id: string }, { ctx }) => {
      const { table, record } = await deleteRecord(ctx, a.app, a.table, a.id, { hard: a.hardDelete === true, deleted: deletedMode(a) });
      return toGraphRecord(table, record);
    },
    deleteRecords: async (_: unknown, a: TableArgs & DeletedArgs & { ids?: string[] | null; filter?: unknown }, { ctx }) => {
      const opts = { hard: a.hardDelete === true, deleted: deletedMode(a) };
      if (a.ids != null && a.filter != null) throw dataErrors.invalidParam('ids', 'Give either ids or filter, not both.');
      if (a.ids != null) return deleteByIds(ctx, a.app, a.table, a.ids, opts);
      if (a.filter == null) throw dataErrors.invalidParam('filter', 'Give `ids` or a `filter` to delete records.');
      return deleteWhere(ctx, a.app, a.table, parseFilterParam(a.filter), opts);
    },
  },
};
