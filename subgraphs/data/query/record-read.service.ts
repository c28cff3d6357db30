// Reading records (docs/data-service.md "Queries"): one list query (filters, search, sort,
// page and exact total in a single statement) and one read by key. REST and GraphQL both call
// these with the typed inputs of record-list-input.ts (the REST routes parse the query string
// into them, the resolvers map their arguments), so both transports share one validation.
// Each transport renders the result its own way (REST envelopes in records-read.routes.ts).
import type { RequestContext } from '../../core/context.js';
import { prepared } from '../../core/db.js';
import type { Query } from '../../core/listing.js';
import { parseRecordId, rowToRecord, type DataRecord } from '../model/codec.js';
import type { DataTable } from '../model/table-model.js';
import { RECORD_TYPES, type SqlText } from '../sql.js';
import { dataErrors } from '../data-errors.js';
import { loadTable } from '../table/table-access.js';
import { parseFilters, type FilterNode, type RelationContext } from './filter.js';
import { appRelationships } from '../relations/app-relationships.js';
import { parsePopulate, populate, type PopulateNode } from '../relations/populate.js';
import { pagingOf, searchOf, sortOf, type Paging } from './list-params.js';
import {
  filterInputFromQuery,
  populateQuery,
  whereEntries,
  type RecordFilterInput,
  type RecordListInput,
  type RecordReadInput,
} from './record-list-input.js';
import { countSql, getSql, listSql, type ListSpec } from './select-builder.js';
import { translateReadError } from './read-errors.js';

export interface RecordList {
  table: DataTable;
  records: DataRecord[];
  total: number;
  paging: Paging;
}

/** All filters of a request: field-named parameters (less relationship options) and the `filter` object. */
export function inputFilter(
  table: DataTable,
  input: RecordFilterInput,
  rels?: RelationContext,
  consumed?: ReadonlySet<string>,
): FilterNode {
  const entries = (input.params ?? []).filter(([k]) => !consumed?.has(k));
  return parseFilters(table, [...entries, ...whereEntries(input.where)], rels);
}

/** The filters of a REST query (aggregate reads, which still take the query). */
export function requestFilter(table: DataTable, query: Query, rels?: RelationContext): FilterNode {
  return inputFilter(table, filterInputFromQuery(query), rels);
}

/** Whether the request names relationships (populate, a dotted filter or sort key): only then is the app's model loaded. */
export function needsRelations(input: RecordListInput | RecordReadInput): boolean {
  if (input.populate != null) return true;
  if ((input.params ?? []).some(([k]) => k.includes('.'))) return true;
  const list = input as RecordListInput;
  if ([list.ordering, list.sort].some((v) => typeof v === 'string' && v.includes('.'))) return true;
  return list.where !== undefined && JSON.stringify(list.where).includes('.');
}

/** The app's relationships when the request needs them (one catalogue query), else undefined. */
export async function relationContext(
  ctx: RequestContext,
  table: DataTable,
  input: RecordListInput | RecordReadInput,
): Promise<RelationContext | undefined> {
  if (!needsRelations(input)) return undefined;
  const { config } = ctx.platform;
  return {
    model: await appRelationships(ctx, table),
    maxDepth: config.dataMaxPopulateDepth,
    maxTraversals: config.dataMaxFilterTraversals,
  };
}

/**
 * Reads by key are named statements (one text per table: planned once per connection). Lists
 * are not: their texts vary with the request's filters without bound, and naming each would
 * leave a prepared statement per shape on every connection.
 */
async function run(ctx: RequestContext, sql: SqlText, named = false): Promise<Array<Record<string, unknown>>> {
  try {
    const config = named ? prepared(sql.text, sql.values) : { text: sql.text, values: sql.values };
    const res = await ctx.platform.pool.query({ ...config, types: RECORD_TYPES });
    return res.rows;
  } catch (e) {
    throw translateReadError(e);
  }
}

export function listSpec(table: DataTable, input: RecordListInput, rels?: RelationContext): ListSpec & { populate: PopulateNode[] } {
  const search = searchOf(table, input.search);
  const plan = rels ? parsePopulate(table, rels.model, populateQuery(input), rels.maxDepth) : { nodes: [], consumed: new Set<string>() };
  return {
    filter: inputFilter(table, input, rels, plan.consumed),
    deleted: input.deleted ?? 'exclude',
    sort: sortOf(table, input, search !== null, rels),
    search,
    paging: pagingOf(input),
    populate: plan.nodes,
  };
}

export async function listRecords(ctx: RequestContext, appRef: string, tableName: string, input: RecordListInput): Promise<RecordList> {
  const { table } = await loadTable(ctx, appRef, tableName, 'data:read');
  const spec = listSpec(table, input, await relationContext(ctx, table, input));
  const rows = await run(ctx, listSql(table, spec));
  let total = rows.length > 0 ? Number(rows[0].__total) : 0;
  // An empty page (past the end, or `_end` = `_start`) has no row to carry the window count.
  if (rows.length === 0 && (spec.paging.offset > 0 || spec.paging.limit === 0))
    total = Number((await run(ctx, countSql(table, spec)))[0].n);
  const records = rows.map((r) => rowToRecord(table, r));
  await populate(ctx, records, spec.populate);
  return { table, records, total, paging: spec.paging };
}

/** One record with its table; null when no record has this key (or it cannot be a key). */
export async function findRecord(
  ctx: RequestContext,
  appRef: string,
  tableName: string,
  id: string,
  /** Which rows it sees; `populate` and its options (absent: no relationship expanded). */
  input: RecordReadInput = {},
): Promise<{ table: DataTable; record: DataRecord | null }> {
  const { table } = await loadTable(ctx, appRef, tableName, 'data:read');
  const rels = input.populate != null ? await relationContext(ctx, table, input) : undefined;
  const plan = rels ? parsePopulate(table, rels.model, populateQuery(input), rels.maxDepth) : null;
  const key = parseRecordId(table.model, id);
  if (!key) return { table, record: null };
  const rows = await run(ctx, getSql(table, key, input.deleted ?? 'exclude'), true);
  const record = rows.length > 0 ? rowToRecord(table, rows[0]) : null;
  if (record && plan) await populate(ctx, [record], plan.nodes);
  return { table, record };
}

export async function getRecord(
  ctx: RequestContext,
  appRef: string,
  tableName: string,
  id: string,
  input: RecordReadInput = {},
): Promise<DataRecord> {
  const { record } = await findRecord(ctx, appRef, tableName, id, input);
  if (!record) throw dataErrors.recordNotFound(id);
  return record;
}
