// Hierarchies (DECISIONS §6): a table whose schema has `hierarchy: {parent_field}` (a
// self-referencing foreign key). `format=tree` nests descendants under `children`;
// `format=graph&include=descendants|ancestors` answers `{data: {nodes, edges}}`. The start
// records are the request's filtered page (without filters: the roots, parent null); `depth`
// (default and maximum 10) bounds the walk. One recursive CTE per request; a row already on
// the path is never walked again, so a cycle cannot loop.
import type { RequestContext } from '../../core/context.js';
import type { Query } from '../../core/listing.js';
import { param } from '../../core/listing.js';
import { dataErrors } from '../data-errors.js';
import { recordIdOf, rowToRecord, type DataRecord } from '../model/codec.js';
import { fieldOf } from '../model/table-model.js';
import { ident, Params, qualified, RECORD_TYPES } from '../sql.js';
import { loadTable } from '../table/table-access.js';
import { buildWhere } from './filter.js';
import type { DeletedMode } from './filter-model.js';
import { deletedFlagsFromQuery, deletedModeOf, pagingFromQuery, pagingOf, type PagingInput } from './list-params.js';
import { translateReadError } from './read-errors.js';
import { filterInputFromQuery, type RecordFilterInput } from './record-list-input.js';
import { inputFilter } from './record-read.service.js';

export const MAX_HIERARCHY_DEPTH = 10;
const FORMATS = ['flat', 'tree', 'graph'];

export const isHierarchyQuery = (query: Query): boolean => {
  const f = param(query, 'format');
  return (f !== undefined && f !== 'flat') || query.include !== undefined || query.depth !== undefined;
};

/**
 * A hierarchy read as both transports hand it to hierarchyRecords: the REST adapter parses the
 * query string once (hierarchyFromQuery), `DataTable.hierarchy` maps its arguments.
 */
export interface HierarchyInput extends RecordFilterInput, PagingInput {
  format?: string | null;
  include?: string | null;
  /** A whole number from 0 to MAX_HIERARCHY_DEPTH (REST gives it as text). */
  depth?: string | number | null;
  deleted?: DeletedMode;
  /** The first list parameter given that does not combine with a hierarchy (`populate`, `_aggregate`, `search`). */
  conflicting?: string;
}

/** A REST hierarchy query (`format`, `include`, `depth`, filters, paging) as the typed input. */
export function hierarchyFromQuery(query: Query): HierarchyInput {
  return {
    ...filterInputFromQuery(query),
    ...pagingFromQuery(query),
    format: param(query, 'format'),
    include: param(query, 'include'),
    depth: param(query, 'depth'),
    deleted: deletedModeOf(deletedFlagsFromQuery(query)),
    conflicting: ['populate', '_aggregate', 'search'].find((p) => query[p] !== undefined),
  };
}

function depthOf(raw: string | number | null | undefined): number {
  if (raw === undefined || raw === null || raw === '') return MAX_HIERARCHY_DEPTH;
  const ok = typeof raw === 'number' ? Number.isInteger(raw) && raw >= 0 : /^\d{1,2}$/.test(raw);
  if (!ok || Number(raw) > MAX_HIERARCHY_DEPTH) throw dataErrors.invalidParam('depth', `A whole number from 0 to ${MAX_HIERARCHY_DEPTH}.`);
  return Number(raw);
}

export async function hierarchyRecords(
  ctx: RequestContext,
  appRef: string,
  tableName: string,
  input: HierarchyInput,
): Promise<Record<string, unknown>> {
  const { table } = await loadTable(ctx, appRef, tableName, 'data:read');
  const format = input.format ?? 'flat';
  if (!FORMATS.includes(format)) throw dataErrors.invalidParam('format', `One of: ${FORMATS.join(', ')}.`);
  if (format === 'flat')
    throw dataErrors.invalidParam(input.include != null ? 'include' : 'depth', 'Applies to format=tree or format=graph.');
  const h = table.model.hierarchy;
  if (!h) throw dataErrors.invalidParam('format', `Table "${table.name}" has no hierarchy (schema key hierarchy: {parent_field}).`);
  if (input.conflicting) throw dataErrors.invalidParam(input.conflicting, `"${input.conflicting}" does not combine with format=${format}.`);
  const include = input.include ?? 'descendants';
  if (include !== 'descendants' && include !== 'ancestors') throw dataErrors.invalidParam('include', 'One of: descendants, ancestors.');
  if (format === 'tree' && include !== 'descendants') throw dataErrors.invalidParam('include', 'format=tree nests descendants only.');
  const depth = depthOf(input.depth);
  const parent = fieldOf(table.model, h.parentField)!;
  const fk = table.model.foreignKeys.find((k) => k.fields[0] === h.parentField)!;
  const key = fieldOf(table.model, fk.reference.fields[0])!;
  const filter = inputFilter(table, input);
  const deleted = input.deleted ?? 'exclude';
  const paging = pagingOf(input);

  const params = new Params();
  const cols = table.model.fields.map((f) => ident(f.name));
  const from = qualified(table.schemaName, table.physicalName);
  let where = buildWhere(table, filter, params, { deleted, alias: 't' });
  if (filter.conditions.length === 0) where += ` AND "t".${ident(parent.name)} IS NULL`;
  const stepDeleted = buildWhere(table, { conditions: [] }, params, { deleted, alias: 'c' });
  const pk = table.model.primaryKey.map((k) => `"t".${ident(k)}`).join(', ');
  const limit = params.add(paging.limit);
  const offset = params.add(paging.offset);
  const maxDepth = params.add(depth);
  const [near, far] = include === 'descendants' ? [parent, key] : [key, parent];
  const text = `WITH RECURSIVE "start" AS (
      SELECT ${cols.map((c) => `"t".${c}`).join(', ')} FROM ${from} AS "t" WHERE ${where} ORDER BY ${pk} LIMIT ${limit} OFFSET ${offset}),
    "walk" AS (
      SELECT ${cols.map((c) => `"s".${c}`).join(', ')}, 0 AS "__depth", ARRAY["s".${ident(key.name)}::text] AS "__path" FROM "start" AS "s"
      UNION ALL
      SELECT ${cols.map((c) => `"c".${c}`).join(', ')}, "w"."__depth" + 1, "w"."__path" || "c".${ident(key.name)}::text
      FROM ${from} AS "c" JOIN "walk" AS "w" ON "c".${ident(near.name)} = "w".${ident(far.name)}
      WHERE "w"."__depth" < ${maxDepth} AND NOT ("c".${ident(key.name)}::text = ANY("w"."__path")) AND ${stepDeleted})
    SELECT * FROM "walk" ORDER BY "__depth"`;
  let rows: Array<Record<string, unknown>>;
  try {
    rows = (await ctx.platform.pool.query({ text, values: params.values, types: RECORD_TYPES })).rows;
  } catch (e) {
    throw translateReadError(e);
  }
  const starts: DataRecord[] = [];
  const byKey = new Map<string, DataRecord>();
  for (const row of rows) {
    const k = String(row[key.name]);
    if (byKey.has(k)) continue;
    const rec = rowToRecord(table, row);
    byKey.set(k, rec);
    if (row.__depth === 0) starts.push(rec);
  }
  if (format === 'graph') {
    const edges: Array<{ source: string; target: string }> = [];
    for (const rec of byKey.values()) {
      const p = rec[parent.name];
      if (p !== null && p !== undefined && byKey.has(String(p)))
        edges.push({ source: recordIdOf(table.model, byKey.get(String(p))!), target: recordIdOf(table.model, rec) });
    }
    return { data: { nodes: [...byKey.values()], edges } };
  }
  const children = new Map<string, DataRecord[]>();
  for (const rec of byKey.values()) {
    const p = rec[parent.name];
    if (p === null || p === undefined) continue;
    const list = children.get(String(p)) ?? [];
    list.push(rec);
    children.set(String(p), list);
  }
  const nest = (rec: DataRecord, level: number, seen: Set<string>): DataRecord => {
    const k = String(rec[key.name]);
    const kids = level >= depth || seen.has(k) ? [] : (children.get(k) ?? []);
    const next = new Set(seen).add(k);
    return { ...rec, children: kids.filter((c) => !next.has(String(c[key.name]))).map((c) => nest(c, level + 1, next)) };
  };
  return { data: starts.map((s) => nest(s, 0, new Set())) };
}
