// One batched read of a relationship for many parent records: the records related to every
// parent key of the batch in ONE statement (`= ANY($1)`), never one per parent. Per-parent
// sorting, limit and offset use a window over the parent key. Shared by populate (REST and
// GraphQL lists) and the GraphQL DataLoaders, so both cost the same.
import type { RequestContext } from '../../core/context.js';
import { rowToRecord, type DataRecord } from '../model/codec.js';
import type { DataTable, FieldModel } from '../model/table-model.js';
import { qualified, RECORD_TYPES, Params, ident } from '../sql.js';
import { fieldExpr, prefixOf, sqlTypeOf } from '../query/field-expr.js';
import { buildWhere, type FilterNode } from '../query/filter.js';
import { translateReadError } from '../query/read-errors.js';
import type { Relationship } from './relationship-model.js';

export interface RelatedSort {
  field: FieldModel;
  desc: boolean;
}

export interface RelatedOptions {
  sort: RelatedSort[];
  /** Records per parent (reverse and many-to-many). */
  limit: number;
  offset: number;
  /** Conditions on the related records (GraphQL `relatedList(filter:)`). */
  filter?: FilterNode;
}

export const DEFAULT_RELATED_LIMIT = 100;
export const MAX_RELATED_LIMIT = 1000;
/** Parent keys of one batch: a page is at most 1000 records, each relationship level at most this many. */
export const MAX_BATCH_KEYS = 100_000;

/** How a key value is compared in JavaScript (both sides come from the database, so equal keys print alike). */
export const keyText = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function columns(table: DataTable, alias: string): string {
  const p = prefixOf(alias);
  if (table.provider === 'jsonb') return `${p}"record_id", ${p}"data", ${p}"seq"`;
  return table.model.fields.map((f) => p + ident(f.name)).join(', ');
}

function orderOf(table: DataTable, sort: RelatedSort[], alias: string): string {
  const parts = sort.map((k) => `${fieldExpr(table, k.field, alias)}${k.desc ? ' DESC' : ''} NULLS LAST`);
  if (table.provider === 'jsonb') parts.push(prefixOf(alias) + '"seq"');
  else for (const name of table.model.primaryKey) parts.push(prefixOf(alias) + ident(name));
  return parts.join(', ');
}

/** The statement reading `rel` for `keys` (values of `rel.fromField` of the parents). */
export function relatedSql(rel: Relationship, keys: unknown[], opts: RelatedOptions): { text: string; values: unknown[] } {
  const params = new Params();
  const target = rel.target;
  const where = [buildWhere(target, opts.filter ?? { conditions: [] }, params, { deleted: 'exclude', alias: 't' })];
  const keyArray = `${params.add(keys)}::${sqlTypeOf(rel.fromField)}[]`;
  let from = `${qualified(target.schemaName, target.physicalName)} AS "t"`;
  let keyExpr: string;
  if (rel.kind === 'forward') {
    keyExpr = fieldExpr(target, rel.targetField, 't');
  } else if (rel.kind === 'reverse') {
    keyExpr = fieldExpr(target, rel.targetField, 't');
  } else {
    const j = rel.through!;
    from += ` JOIN ${qualified(j.table.schemaName, j.table.physicalName)} AS "j" ON ${fieldExpr(j.table, j.targetField, 'j')} = ${fieldExpr(target, rel.targetField, 't')}`;
    keyExpr = fieldExpr(j.table, j.fromField, 'j');
    const own = buildWhere(j.table, { conditions: [] }, params, { deleted: 'exclude', alias: 'j' });
    if (own !== 'TRUE') where.push(own);
  }
  where.push(`${keyExpr} = ANY(${keyArray})`);
  const cond = where.filter((w) => w !== 'TRUE').join(' AND ') || 'TRUE';
  const order = orderOf(target, opts.sort, 't');
  if (rel.kind === 'forward') {
    return { text: `SELECT ${columns(target, 't')}, ${keyExpr} AS "__k" FROM ${from} WHERE ${cond}`, values: params.values };
  }
  const lo = params.add(opts.offset);
  const hi = params.add(opts.offset + opts.limit);
  const inner = `SELECT ${columns(target, 't')}, ${keyExpr} AS "__k", row_number() OVER (PARTITION BY ${keyExpr} ORDER BY ${order}) AS "__rn" FROM ${from} WHERE ${cond}`;
  return { text: `SELECT * FROM (${inner}) AS "s" WHERE "__rn" > ${lo} AND "__rn" <= ${hi} ORDER BY "__k", "__rn"`, values: params.values };
}

/** Related records by parent key text; parents without any get no entry. */
export async function fetchRelated(
  ctx: RequestContext,
  rel: Relationship,
  keys: unknown[],
  opts: RelatedOptions,
): Promise<Map<string, DataRecord[]>> {
  const out = new Map<string, DataRecord[]>();
  const distinct = [...new Map(keys.filter((k) => k !== null && k !== undefined).map((k) => [keyText(k), k])).values()];
  if (distinct.length === 0) return out;
  const sql = relatedSql(rel, distinct, opts);
  let rows: Array<Record<string, unknown>>;
  try {
    rows = (await ctx.platform.pool.query({ text: sql.text, values: sql.values, types: RECORD_TYPES })).rows;
  } catch (e) {
    throw translateReadError(e);
  }
  for (const row of rows) {
    const k = keyText(row.__k)!;
    let list = out.get(k);
    if (!list) out.set(k, (list = []));
    list.push(rowToRecord(rel.target, row));
  }
  return out;
}
