// A record as the GraphQL type DataRecord {id, table, data, rank, excerpt} (DECISIONS §11);
// shared by the read resolvers and the write mutations.
import { recordIdOf, type DataRecord } from '../model/codec.js';
import type { DataTable } from '../model/table-model.js';

export interface GraphRecord {
  id: string;
  table: string;
  data: DataRecord;
  rank: number | null;
  excerpt: string | null;
  /** The record's table, for `related`/`relatedList` (not a GraphQL field). */
  source?: DataTable;
}

export function toGraphRecord(table: Pick<DataTable, 'name' | 'model'> | DataTable, record: DataRecord): GraphRecord {
  const { rank, excerpt, ...data } = record;
  return {
    source: 'appId' in table ? table : undefined,
    id: recordIdOf(table.model, data),
    table: table.name,
    data,
    rank: typeof rank === 'number' ? rank : null,
    excerpt: typeof excerpt === 'string' ? excerpt : null,
  };
}
