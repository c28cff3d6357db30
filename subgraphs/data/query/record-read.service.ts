// Reading records (docs/data-service.md "Queries"): one list query (filters, search, sort,
// page and exact total in a single statement) and one read by key. REST and GraphQL both
// call these with a REST-style query, so both transports share one validation.
import type { RequestContext } from '../../core/context.js';
import { prepared } from '../../core/db.js';
import type { Query } from '../../core/listing.js';
import { param } from '../../core/listing.js';
import { parseRecordId, rowToRecord, type DataRecord } from '../model/codec.js';
import type { DataTable } from '../model/table-model.js';
import { RECORD_TYPES, type SqlText } from '../sql.js';
import { dataErrors } from '../data-errors.js';
import { loadTable } from '../table/table-access.js';
import { filterEntries, parseFilters, type FilterNode, type RelationContext } from './filter.js';
import type { DeletedMode } from './filter-model.js';
import { appRelationships } from '../relations/app-relationships.js';
import { parsePopulate, populate, type PopulateNode } from '../relations/populate.js';
import { parseDeleted, parsePaging, parseSearch, parseSort, refuseLater, type Paging } from './list-params.js';
import { countSql, getSql, listSql, type ListSpec } from './select-builder.js';
import { translateReadError } from './read-errors.js';

export interface RecordList {
  table: DataTable;
  records: DataRecord[];
  total: number;
  paging: Paging;
}

const MAX_FILTER_LENGTH = 100_000;

/** The `filter` parameter: a JSON object of filter keys (also how GraphQL passes filters). */
function filterParam(raw: string | undefined): Array<[string, unknown]> {
  if (raw === undefined || raw.trim() === '') return [];
  if (raw.length > MAX_FILTER_LENGTH) throw dataErrors.invalidParam('filter', `At most ${MAX_FILTER_LENGTH} characters.`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw dataErrors.invalidParam('filter', 'Not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw dataErrors.invalidParam('filter', 'Expected a JSON object of filters.');
  }
  return Object.entries(value);
}

/** All filters of a request: query parameters (less relationship options) and the `filter` JSON. */
export function requestFilter(table: DataTable, query: Query, rels?: RelationContext, consumed?: ReadonlySet<string>): FilterNode {
  const entries = filterEntries(query).filter(([k]) => !consumed?.has(k));
  return parseFilters(table, [...entries, ...filterParam(param(query, 'filter'))], rels);
}

/** Whether the request names relationships (populate, a dotted filter or sort key): only then is the app's model loaded. */
export function needsRelations(query: Query): boolean {
  if (query.populate !== undefined) return true;
  for (const [k, v] of Object.entries(query)) {
    if (k.includes('.')) return true;
    if ((k === 'ordering' || k === '_sort' || k === 'filter') && [v].flat().some((x) => typeof x === 'string' && x.includes('.')))
      return true;
  }
  return false;
}

/** The app's relationships when the request needs them (one catalogue query), else undefined. */
export async function relationContext(ctx: RequestContext, table: DataTable, query: Query): Promise<RelationContext | undefined> {
  if (!needsRelations(query)) return undefined;
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

export function listSpec(table: DataTable, query: Query, rels?: RelationContext): ListSpec & { populate: PopulateNode[] } {
  refuseLater(query);
  const search = parseSearch(table, query);
  const plan = rels ? parsePopulate(table, rels.model, query, rels.maxDepth) : { nodes: [], consumed: new Set<string>() };
  return {
    filter: requestFilter(table, query, rels, plan.consumed),
    deleted: parseDeleted(query),
    sort: parseSort(table, query, search !== null, rels),
    search,
    paging: parsePaging(query),
    populate: plan.nodes,
  };
}

export async function listRecords(ctx: RequestContext, appRef: string, tableName: string, query: Query): Promise<RecordList> {
  const { table } = await loadTable(ctx, appRef, tableName, 'data:read');
  const spec = listSpec(table, query, await relationContext(ctx, table, query));
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
  deleted: DeletedMode = 'exclude',
  /** `populate` and its options (REST query parameters); absent: no relationship expanded. */
  query: Query = {},
): Promise<{ table: DataTable; record: DataRecord | null }> {
  const { table } = await loadTable(ctx, appRef, tableName, 'data:read');
  const rels = query.populate !== undefined ? await relationContext(ctx, table, query) : undefined;
  const plan = rels ? parsePopulate(table, rels.model, query, rels.maxDepth) : null;
  const key = parseRecordId(table.model, id);
  if (!key) return { table, record: null };
  const rows = await run(ctx, getSql(table, key, deleted), true);
  const record = rows.length > 0 ? rowToRecord(table, rows[0]) : null;
  if (record && plan) await populate(ctx, [record], plan.nodes);
  return { table, record };
}

export async function getRecord(
  ctx: RequestContext,
  appRef: string,
  tableName: string,
  id: string,
  deleted: DeletedMode = 'exclude',
  query: Query = {},
): Promise<DataRecord> {
  const { record } = await findRecord(ctx, appRef, tableName, id, deleted, query);
  if (!record) throw dataErrors.recordNotFound(id);
  return record;
}

/** The REST list envelope: `{data, total, page, page_size}`, or `{data, total, meta}` for `_start`/`_end`. */
export function listEnvelope(list: RecordList): Record<string, unknown> {
  const { offset, limit } = list.paging;
  if (list.paging.style === 'range') {
    const count = list.records.length;
    return { data: list.records, total: list.total, meta: { offset, limit, count, has_more: offset + count < list.total } };
  }
  return { data: list.records, total: list.total, page: Math.floor(offset / limit) + 1, page_size: limit };
}
