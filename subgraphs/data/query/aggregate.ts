// Aggregation on the record list (seed 3 "Aggregation"): `_aggregate=count(*),sum(views)`,
// `_group_by=f1,f2`, `_having=count__gt=1,sum_views__gte=100`. Functions and fields come from
// a fixed list and the table's model; every value is bound. Filters apply before grouping.
// Without `_group_by`: `{data: [], aggregates: {count, sum_views, …}}`; with it:
// `{data: [{<group fields>, <aggregates>}], total}` (total = number of groups, pages as lists).
import type { RequestContext } from '../../core/context.js';
import type { Query } from '../../core/listing.js';
import { param } from '../../core/listing.js';
import { dataErrors } from '../data-errors.js';
import type { DataTable, FieldModel } from '../model/table-model.js';
import { fieldOf } from '../model/table-model.js';
import { loadTable } from '../table/table-access.js';
import { Params, qualified, RECORD_TYPES, type SqlText } from '../sql.js';
import { fieldExpr } from './field-expr.js';
import { buildWhere, type DeletedMode, type FilterNode } from './filter.js';
import { inputFilter } from './record-read.service.js';
import { pagingFromQuery, pagingOf, parseDeleted, type PagingInput, type Paging } from './list-params.js';
import { filterInputFromQuery, type RecordFilterInput } from './record-list-input.js';
import { translateReadError } from './read-errors.js';

export const AGGREGATE_FUNCTIONS = [
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'array_agg',
  'string_agg',
  'json_agg',
  'stddev',
  'variance',
] as const;
type AggregateFn = (typeof AGGREGATE_FUNCTIONS)[number];
const NUMERIC_FNS = new Set<AggregateFn>(['sum', 'avg', 'stddev', 'variance']);
const ORDERED = new Set(['string', 'integer', 'number', 'date', 'time', 'datetime']);
const HAVING_OPS: Record<string, string> = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' };
const MAX_AGGREGATES = 20;
const MAX_GROUP_FIELDS = 10;
const MAX_HAVING = 10;
const AGGREGATE_PARAMS = ['_aggregate', '_group_by', '_having'];

export interface Aggregate {
  fn: AggregateFn;
  field: FieldModel | null;
  /** The output name: `count` for count(*), else `{fn}_{field}`. */
  alias: string;
}

export interface HavingCondition {
  aggregate: Aggregate;
  op: string;
  value: number;
}

export interface AggregateSpec {
  aggregates: Aggregate[];
  groupBy: FieldModel[];
  having: HavingCondition[];
  filter: FilterNode;
  deleted: DeletedMode;
  paging: Paging;
}

/** Whether a list request asks for aggregation. */
export const isAggregateQuery = (query: Query): boolean => AGGREGATE_PARAMS.some((p) => query[p] !== undefined);

const items = (raw: string | undefined): string[] => (raw === undefined || raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim()));

export function parseAggregates(table: DataTable, raw: string | undefined): Aggregate[] {
  const out: Aggregate[] = [];
  const list = items(raw);
  if (list.length > MAX_AGGREGATES) throw dataErrors.invalidParam('_aggregate', `At most ${MAX_AGGREGATES} aggregates.`);
  for (const item of list) {
    const m = /^([a-z_]{1,20})\(([^()]{0,200})\)$/.exec(item);
    if (!m) throw dataErrors.invalidParam('_aggregate', `"${item.slice(0, 100)}" is not of the form function(field).`);
    const fn = m[1] as AggregateFn;
    if (!AGGREGATE_FUNCTIONS.includes(fn)) throw dataErrors.invalidParam('_aggregate', `Unknown function "${m[1]}".`);
    const arg = m[2].trim();
    if (arg === '*') {
      if (fn !== 'count') throw dataErrors.invalidParam('_aggregate', `Only count takes "*".`);
      if (!out.some((a) => a.alias === 'count')) out.push({ fn, field: null, alias: 'count' });
      continue;
    }
    const field = fieldOf(table.model, arg);
    if (!field) throw dataErrors.invalidParam('_aggregate', `Unknown field "${arg.slice(0, 100)}".`);
    if (NUMERIC_FNS.has(fn) && field.type !== 'integer' && field.type !== 'number')
      throw dataErrors.invalidParam('_aggregate', `${fn} needs an integer or number field, not "${field.name}".`);
    if ((fn === 'min' || fn === 'max') && !ORDERED.has(field.type))
      throw dataErrors.invalidParam('_aggregate', `${fn} does not apply to ${field.type} field "${field.name}".`);
    if (fn === 'string_agg' && field.type !== 'string')
      throw dataErrors.invalidParam('_aggregate', `string_agg needs a string field, not "${field.name}".`);
    const alias = `${fn}_${field.name}`;
    if (!out.some((a) => a.alias === alias)) out.push({ fn, field, alias });
  }
  return out;
}

export function parseGroupBy(table: DataTable, raw: string | undefined): FieldModel[] {
  const list = items(raw);
  if (list.length > MAX_GROUP_FIELDS) throw dataErrors.invalidParam('_group_by', `At most ${MAX_GROUP_FIELDS} fields.`);
  const out: FieldModel[] = [];
  for (const name of list) {
    const field = fieldOf(table.model, name);
    if (!field) throw dataErrors.invalidParam('_group_by', `Unknown field "${name.slice(0, 100)}".`);
    if (!out.includes(field)) out.push(field);
  }
  return out;
}

/** Aggregates whose value is a number (the ones `_having` compares). */
const isNumeric = (a: Aggregate): boolean =>
  a.fn === 'count' ||
  NUMERIC_FNS.has(a.fn) ||
  ((a.fn === 'min' || a.fn === 'max') && (a.field!.type === 'integer' || a.field!.type === 'number'));

export function parseHaving(aggregates: Aggregate[], raws: string[]): HavingCondition[] {
  const list = raws.flatMap(items);
  if (list.length > MAX_HAVING) throw dataErrors.invalidParam('_having', `At most ${MAX_HAVING} conditions.`);
  return list.map((item) => {
    const m = /^([A-Za-z0-9_]+?)(?:__(eq|ne|gt|gte|lt|lte))?=(.*)$/s.exec(item);
    if (!m) throw dataErrors.invalidParam('_having', `"${item.slice(0, 100)}" is not of the form aggregate__operator=value.`);
    const aggregate = aggregates.find((a) => a.alias === m[1]);
    if (!aggregate) throw dataErrors.invalidParam('_having', `"${m[1].slice(0, 100)}" is not one of the requested aggregates.`);
    if (!isNumeric(aggregate)) throw dataErrors.invalidParam('_having', `"${aggregate.alias}" is not a number.`);
    const text = m[3].trim();
    const value = Number(text);
    if (text === '' || !Number.isFinite(value)) throw dataErrors.invalidParam('_having', `"${text.slice(0, 40)}" is not a number.`);
    return { aggregate, op: HAVING_OPS[m[2] ?? 'eq'], value };
  });
}

function aggregateSql(table: DataTable, a: Aggregate): string {
  if (a.field === null) return 'count(*)';
  const e = fieldExpr(table, a.field, 't');
  switch (a.fn) {
    case 'array_agg':
      // As JSON, so an array of bigint or dates reads back as the record codec would give them.
      return `to_jsonb(array_agg(${e}))`;
    case 'string_agg':
      return `string_agg(${e}, ',')`;
    case 'sum':
    case 'avg':
    case 'stddev':
    case 'variance':
      return `${a.fn}(${e})::float8`;
    default:
      return `${a.fn}(${e})`;
  }
}

/** An aggregation as both transports hand it to aggregateRecords (REST: aggregateFromQuery; GraphQL: its arguments). */
export interface AggregateInput extends RecordFilterInput, PagingInput {
  /** `count(*),sum(total)`, comma-separated (`_aggregate`). */
  aggregate?: string | null;
  /** `status,country` (`_group_by`). */
  groupBy?: string | null;
  /** `count(*)__gt=3`, one condition each (`_having`, repeatable). */
  having?: readonly string[];
  deleted?: DeletedMode;
}

/** A REST aggregation query as the typed input; what does not combine with aggregation answers 400. */
export function aggregateFromQuery(query: Query): AggregateInput {
  if (query.search !== undefined) throw dataErrors.invalidParam('search', 'Full-text search does not combine with _aggregate.');
  for (const p of ['populate', 'format', 'include', 'depth'])
    if (query[p] !== undefined) throw dataErrors.invalidParam(p, `"${p}" does not combine with _aggregate.`);
  return {
    ...filterInputFromQuery(query),
    ...pagingFromQuery(query),
    aggregate: param(query, '_aggregate'),
    groupBy: param(query, '_group_by'),
    having: query._having === undefined ? [] : [query._having].flat().filter((v): v is string => typeof v === 'string'),
    deleted: parseDeleted(query),
  };
}

export function aggregateSpec(table: DataTable, input: AggregateInput): AggregateSpec {
  const aggregates = parseAggregates(table, input.aggregate ?? undefined);
  const groupBy = parseGroupBy(table, input.groupBy ?? undefined);
  const having = parseHaving(aggregates, [...(input.having ?? [])]);
  if (aggregates.length === 0 && groupBy.length === 0)
    throw dataErrors.invalidParam('_aggregate', 'Name at least one aggregate, such as count(*).');
  if (having.length > 0 && groupBy.length === 0) throw dataErrors.invalidParam('_having', '_having needs _group_by.');
  return {
    aggregates,
    groupBy,
    having,
    // Without a relationship context, so dotted keys answer 400 (traversal does not combine with aggregation).
    filter: inputFilter(table, input),
    deleted: input.deleted ?? 'exclude',
    paging: pagingOf(input),
  };
}

export function aggregateQuerySql(table: DataTable, spec: AggregateSpec): SqlText {
  const params = new Params();
  const where = buildWhere(table, spec.filter, params, { deleted: spec.deleted, alias: 't' });
  const groups = spec.groupBy.map((f) => `${fieldExpr(table, f, 't')} AS "g_${f.name.replace(/"/g, '""')}"`);
  const aggs = spec.aggregates.map((a) => `${aggregateSql(table, a)} AS "a_${a.alias.replace(/"/g, '""')}"`);
  const from = `${qualified(table.schemaName, table.physicalName)} AS "t"`;
  if (spec.groupBy.length === 0) return { text: `SELECT ${aggs.join(', ')} FROM ${from} WHERE ${where}`, values: params.values };
  const keys = spec.groupBy.map((f) => fieldExpr(table, f, 't'));
  const having = spec.having.map((h) => `${aggregateSql(table, h.aggregate)} ${h.op} ${params.add(h.value)}::float8`);
  const limit = params.add(spec.paging.limit);
  const offset = params.add(spec.paging.offset);
  const text =
    `SELECT ${[...groups, ...aggs].join(', ')}, count(*) OVER () AS "__total" FROM ${from} WHERE ${where} ` +
    `GROUP BY ${keys.join(', ')}${having.length ? ` HAVING ${having.join(' AND ')}` : ''} ` +
    `ORDER BY ${keys.map((k) => `${k} NULLS LAST`).join(', ')} LIMIT ${limit} OFFSET ${offset}`;
  return { text, values: params.values };
}

export async function aggregateRecords(
  ctx: RequestContext,
  appRef: string,
  tableName: string,
  input: AggregateInput,
): Promise<Record<string, unknown>> {
  const { table } = await loadTable(ctx, appRef, tableName, 'data:read');
  const spec = aggregateSpec(table, input);
  const sql = aggregateQuerySql(table, spec);
  let rows: Array<Record<string, unknown>>;
  try {
    rows = (await ctx.platform.pool.query({ text: sql.text, values: sql.values, types: RECORD_TYPES })).rows;
  } catch (e) {
    throw translateReadError(e);
  }
  const aggregatesOf = (row: Record<string, unknown>) =>
    Object.fromEntries(spec.aggregates.map((a) => [a.alias, row[`a_${a.alias}`] ?? null]));
  if (spec.groupBy.length === 0) return { data: [], aggregates: aggregatesOf(rows[0] ?? {}) };
  let total = rows.length > 0 ? Number(rows[0].__total) : 0;
  if (rows.length === 0 && spec.paging.offset > 0) {
    const count = await ctx.platform.pool.query({
      text: `SELECT count(*) AS "n" FROM (${sql.text.replace(/ LIMIT \$\d+ OFFSET \$\d+$/, '')}) AS "g"`,
      values: sql.values.slice(0, -2),
    });
    total = Number(count.rows[0].n);
  }
  const data = rows.map((row) => ({
    ...Object.fromEntries(spec.groupBy.map((f) => [f.name, row[`g_${f.name}`]])),
    ...aggregatesOf(row),
  }));
  return { data, total };
}
