// Data subgraph resolvers (records-write): the write mutations of DECISIONS §11, mapping their
// arguments straight to the typed write inputs (records/write-params.ts) the REST routes parse
// their body and query into, and calling the same services, so both transports validate and
// answer alike.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { dataErrors } from './data-errors.js';
import { toGraphRecord } from './query/graph-record.js';
import { deletedModeOf } from './query/list-params.js';
import { upsertRecords } from './records/record-upsert.service.js';
import { deleteOptionsOf, filterObjectEntries, type DeleteFlags } from './records/write-params.js';
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
type DeletedArgs = DeleteFlags;

export const recordWriteResolvers: ResolverMap = {
  Mutation: {
    createRecord: async (_: unknown, a: TableArgs & { data: unknown }, { ctx }) => {
      if (Array.isArray(a.data)) throw dataErrors.validation({ data: ['Use createRecords for a list.'] });
      const { table, records } = await createRecords(ctx, a.app, a.table, { records: [a.data], many: false });
      return toGraphRecord(table, records[0]);
    },
    createRecords: async (_: unknown, a: TableArgs & { data: unknown[] }, { ctx }) => {
      const { table, records } = await createRecords(ctx, a.app, a.table, { records: a.data, many: true });
      return records.map((r) => toGraphRecord(table, r));
    },
    upsertRecord: async (_: unknown, a: TableArgs & { data: unknown; uniqueFields: string[] }, { ctx }) => {
      if (Array.isArray(a.data)) throw dataErrors.validation({ data: ['Must be one record.'] });
      const r = await upsertRecords(ctx, a.app, a.table, { records: [a.data], many: false, uniqueFields: a.uniqueFields });
      return { record: toGraphRecord(r.table, r.records[0]), created: r.created[0] };
    },
    updateRecord: async (_: unknown, a: TableArgs & DeletedArgs & { id: string; data: unknown }, { ctx }) => {
      const { table, record } = await patchRecord(ctx, a.app, a.table, a.id, a.data, { deleted: deletedModeOf(a) });
      return toGraphRecord(table, record);
    },
    updateRecords: async (_: unknown, a: TableArgs & DeletedArgs & { data: unknown[] }, { ctx }) => {
      const { table, records } = await patchRecords(ctx, a.app, a.table, a.data, { deleted: deletedModeOf(a) });
      return records.map((r) => toGraphRecord(table, r));
    },
    updateRecordsWhere: async (_: unknown, a: TableArgs & DeletedArgs & { filter: unknown; data: unknown }, { ctx }) => {
      const entries = filterObjectEntries(a.filter);
      const { table, records, total } = await patchWhere(ctx, a.app, a.table, entries, a.data, { deleted: deletedModeOf(a) });
      return { items: records.map((r) => toGraphRecord(table, r)), total };
    },
    deleteRecord: async (_: unknown, a: TableArgs & DeletedArgs & { id: string }, { ctx }) => {
      const { table, record } = await deleteRecord(ctx, a.app, a.table, a.id, deleteOptionsOf(a));
      return toGraphRecord(table, record);
    },
    deleteRecords: async (_: unknown, a: TableArgs & DeletedArgs & { ids?: string[] | null; filter?: unknown }, { ctx }) => {
      const opts = deleteOptionsOf(a);
      if (a.ids != null && a.filter != null) throw dataErrors.invalidParam('ids', 'Give either ids or filter, not both.');
      if (a.ids != null) return deleteByIds(ctx, a.app, a.table, a.ids, opts);
      if (a.filter == null) throw dataErrors.invalidParam('filter', 'Give `ids` or a `filter` to delete records.');
      return deleteWhere(ctx, a.app, a.table, filterObjectEntries(a.filter), opts);
    },
  },
};
