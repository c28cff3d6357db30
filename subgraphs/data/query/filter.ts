// Filters of record queries (docs/data-service.md "Filters"): request keys and values parsed
// against the table's model into a tree, and the tree built into a WHERE clause with bound
// parameters. Shared by lists, bulk PATCH by filter, DELETE by filter and GraphQL.
import type { DataTable, FieldModel } from '../model/table-model.js';
import { fieldOf, RESERVED_PARAMS } from '../model/table-model.js';
import type { Params } from '../sql.js';
import type { Relationship, RelationshipModel } from '../relations/relationship-model.js';
import { dataErrors } from '../data-errors.js';
import { ident, qualified } from '../sql.js';
import { fieldExpr, isJsonType } from './field-expr.js';
import { buildCondition, deletedCondition, tableCondition } from './filter-sql.js';
import { checked, flagValue, jsonValue, listOf, scalarValue, textValue } from './filter-values.js';
import {
  isOperator,
  OPERATORS,
  type Condition,
  type DeletedMode,
  type FieldRef,
  type FilterNode,
  type Operand,
  type Operator,
} from './filter-model.js';

export {
  OPERATORS,
  isOperator,
  type Condition,
  type DeletedMode,
  type FieldRef,
  type FilterNode,
  type Operand,
  type Operator,
} from './filter-model.js';

const COMPARISON = new Set<Operator>(['gt', 'gte', 'lt', 'lte']);
const RANGE = new Set<Operator>(['between', 'nbetween']);
const LIST = new Set<Operator>(['in', 'nin', 'ins']);
const LIST_CI = new Set<Operator>(['ina', 'nina']);
const STRING_OPS = new Set<Operator>([
  'contains',
  'containss',
  'ncontains',
  'icontains',
  'nicontains',
  'startswith',
  'startswiths',
  'nstartswith',
  'istartswith',
  'endswith',
  'endswiths',
  'nendswith',
  'iendswith',
]);
const JSON_OPS = new Set<Operator>(['contains', 'contained_by']);
const KEY_OPS = new Set<Operator>(['has_key', 'has_any_keys', 'has_all_keys']);
const ORDERED_TYPES = new Set(['string', 'integer', 'number', 'date', 'time', 'datetime']);

const unknownField = (key: string, name: string) => dataErrors.invalidParam(key, `Unknown field "${name}".`);

/** `field_op` (one underscore) when `field` is a field and the key itself is not. */
function splitSingleUnderscore(table: DataTable, key: string): { field: FieldModel; op: Operator } | null {
  let best: { field: FieldModel; op: Operator } | null = null;
  for (const op of OPERATORS) {
    if (!key.endsWith('_' + op)) continue;
    const field = fieldOf(table.model, key.slice(0, -op.length - 1));
    if (field && (!best || op.length > best.op.length)) best = { field, op };
  }
  return best;
}

/** How dot-notation keys are resolved: the app's relationships and the hop limit. */
export interface RelationContext {
  model: RelationshipModel;
  maxDepth: number;
  maxTraversals: number;
}

/** The relationships of a dotted key (`author.country.name`: two hops) and the rest of the key. */
function resolveHops(
  table: DataTable,
  key: string,
  rels: RelationContext | undefined,
): { table: DataTable; hops: Relationship[]; rest: string } {
  if (!key.includes('.')) return { table, hops: [], rest: key };
  if (!rels) throw dataErrors.invalidParam(key, 'Relationship filters (dot notation) are not supported here.');
  if (table.provider === 'jsonb') throw dataErrors.invalidParam(key, 'Relationship filters need the flat_table provider.');
  const segs = key.split('.');
  if (segs.some((s) => s === '')) throw dataErrors.invalidParam(key, 'Empty segment in filter key.');
  const names = segs.slice(0, -1);
  if (names.length > rels.maxDepth) throw dataErrors.invalidParam(key, `At most ${rels.maxDepth} relationship hops.`);
  const hops: Relationship[] = [];
  let at = table;
  for (const name of names) {
    const rel = rels.model.get(at.name)?.get(name);
    if (!rel) throw dataErrors.invalidParam(key, `Unknown relationship "${name.slice(0, 100)}" of table "${at.name}".`);
    hops.push(rel);
    at = rel.target;
  }
  return { table: at, hops, rest: segs[segs.length - 1] };
}

function resolveKey(root: DataTable, fullKey: string, rels?: RelationContext): { ref: FieldRef; op: Operator } {
  const { table, hops, rest: key } = resolveHops(root, fullKey, rels);
  const r = resolveField(table, key, fullKey);
  return { ref: { ...r.ref, hops }, op: r.op };
}

function resolveField(table: DataTable, key: string, fullKey: string): { ref: FieldRef; op: Operator } {
  const parts = key.split('__');
  if (parts.some((p) => p === '')) throw dataErrors.invalidParam(fullKey, 'Empty segment in filter key.');
  const field = fieldOf(table.model, parts[0]);
  if (!field) {
    if (parts.length === 1) {
      const single = splitSingleUnderscore(table, key);
      if (single) return { ref: { hops: [], field: single.field, path: [] }, op: single.op };
    }
    throw unknownField(fullKey, parts[0]);
  }
  const last = parts[parts.length - 1];
  const hasOp = parts.length > 1 && isOperator(last);
  const path = parts.slice(1, hasOp ? -1 : undefined);
  if (path.length > 0 && field.type !== 'object' && field.type !== 'any') {
    const name = path[path.length - 1];
    throw dataErrors.invalidParam(
      fullKey,
      parts.length === 2 ? `Unknown operator "${name}".` : `Field "${field.name}" has no nested values.`,
    );
  }
  for (const seg of path) checked(fullKey, () => textValue(seg));
  return { ref: { hops: [], field, path }, op: hasOp ? (last as Operator) : 'eq' };
}

const notApplicable = (key: string, op: Operator, what: string) =>
  dataErrors.invalidParam(key, `Operator "${op}" does not apply to ${what}.`);

function range(raw: unknown, parse: (v: unknown) => unknown): Operand {
  const items = listOf(raw);
  if (items.length !== 2) throw new Error('range');
  return { kind: 'range', min: parse(items[0]), max: parse(items[1]) };
}

function scalarOperand(key: string, field: FieldModel, op: Operator, raw: unknown): Operand {
  const what = `${field.type} field "${field.name}"`;
  const scalar = (v: unknown) => checked(key, () => scalarValue(field, v));
  if (op === 'eq' || op === 'ne') return { kind: 'scalar', value: scalar(raw) };
  if (op === 'null' || op === 'nnull') return { kind: 'flag', value: checked(key, () => flagValue(raw)) };
  if (COMPARISON.has(op) || RANGE.has(op)) {
    if (!ORDERED_TYPES.has(field.type)) throw notApplicable(key, op, what);
    if (COMPARISON.has(op)) return { kind: 'scalar', value: scalar(raw) };
    return rangeOperand(key, raw, scalar);
  }
  if (LIST.has(op)) return { kind: 'list', values: listOf(raw).map(scalar) };
  if (field.type !== 'string') throw notApplicable(key, op, what);
  if (LIST_CI.has(op)) return { kind: 'texts', values: listOf(raw).map((v) => checked(key, () => textValue(v))) };
  if (STRING_OPS.has(op)) return { kind: 'text', value: checked(key, () => textValue(raw)) };
  throw notApplicable(key, op, what);
}

function rangeOperand(key: string, raw: unknown, parse: (v: unknown) => unknown): Operand {
  try {
    return range(raw, parse);
  } catch (e) {
    if (e instanceof Error && e.message === 'range') throw dataErrors.invalidParam(key, 'Expected two values "min,max".');
    throw e;
  }
}

function jsonOperand(key: string, field: FieldModel, op: Operator, raw: unknown, nested: boolean): Operand {
  const what = nested ? `nested value "${key}"` : `${field.type} field "${field.name}"`;
  const keyed = field.type !== 'array' || nested;
  if (op === 'eq' || op === 'ne' || JSON_OPS.has(op)) return { kind: 'json', value: checked(key, () => jsonValue(raw)) };
  if (op === 'null' || op === 'nnull') return { kind: 'flag', value: checked(key, () => flagValue(raw)) };
  if (op === 'has_key' && keyed) return { kind: 'text', value: checked(key, () => textValue(raw)) };
  if (KEY_OPS.has(op) && keyed) return { kind: 'texts', values: listOf(raw).map((v) => checked(key, () => textValue(v))) };
  if (!nested) throw notApplicable(key, op, what);
  if (LIST.has(op) || LIST_CI.has(op)) return { kind: 'texts', values: listOf(raw).map((v) => checked(key, () => textValue(v))) };
  if (STRING_OPS.has(op)) return { kind: 'text', value: checked(key, () => textValue(raw)) };
  const values = RANGE.has(op) ? listOf(raw) : [raw];
  if (RANGE.has(op) && values.length !== 2) throw dataErrors.invalidParam(key, 'Expected two values "min,max".');
  const texts = values.map((v) => checked(key, () => textValue(v)));
  const numeric = texts.every((t) => /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?$/.test(t.trim()) && Number.isFinite(Number(t)));
  return { kind: 'loose', numeric, values: numeric ? texts.map(Number) : texts };
}

/**
 * Parses filter entries (`[key, value]` from query parameters, where values are strings, or
 * from a `filter` JSON object, where values may be any JSON) against the table; reserved
 * parameters must already be removed. Throws 400 naming the first bad key.
 */
export function parseFilters(table: DataTable, entries: ReadonlyArray<readonly [string, unknown]>, rels?: RelationContext): FilterNode {
  const conditions: Condition[] = [];
  const paths = new Set<string>();
  for (const [key, raw] of entries) {
    const { ref, op } = resolveKey(table, key, rels);
    if (ref.hops.length > 0) {
      paths.add(ref.hops.map((h) => h.name).join('.'));
      if (paths.size > rels!.maxTraversals)
        throw dataErrors.invalidParam(key, `At most ${rels!.maxTraversals} distinct related paths in the filters of one request.`);
    }
    if (raw === null && op !== 'eq' && op !== 'ne') throw dataErrors.invalidParam(key, 'A value is required.');
    if (raw === null) {
      // `{"f": null}` in a filter object: the null test, for any field.
      conditions.push({ key, ref, op: 'null', operand: { kind: 'flag', value: op === 'eq' } });
      continue;
    }
    const nested = ref.path.length > 0;
    const operand =
      nested || isJsonType(ref.field.type) ? jsonOperand(key, ref.field, op, raw, nested) : scalarOperand(key, ref.field, op, raw);
    conditions.push({ key, ref, op, operand });
  }
  return { conditions };
}

/** Filter entries of a query string: every parameter that is not reserved. */
export function filterEntries(query: Record<string, string | string[] | undefined>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [key, v] of Object.entries(query)) {
    if (RESERVED_PARAMS.has(key) || v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.push([key, one]);
  }
  return out;
}

/**
 * The WHERE condition (without `WHERE`) selecting the filter's rows of `table`, soft-deleted
 * rows handled by `deleted`; values are added to `params`. `alias` qualifies columns.
 */
export function buildWhere(
  table: DataTable,
  filter: FilterNode,
  params: Params,
  opts: { deleted: DeletedMode; alias?: string; depth?: number },
): string {
  const parts: string[] = [];
  const own = tableCondition(table, params, opts.alias);
  if (own) parts.push(own);
  const del = deletedCondition(table, opts.deleted, opts.alias);
  if (del) parts.push(del);
  const related = new Map<string, Condition[]>();
  for (const c of filter.conditions) {
    if (c.ref.hops.length === 0) parts.push(buildCondition(table, c, params, opts.alias));
    else {
      const name = c.ref.hops[0].name;
      related.set(name, [...(related.get(name) ?? []), c]);
    }
  }
  // Conditions on one path share one EXISTS (one related row satisfies all of them); a
  // related row never duplicates the parent and never joins the answer.
  for (const conds of related.values()) parts.push(relatedExists(conds, params, opts.alias, opts.depth ?? 0));
  return parts.length ? parts.join(' AND ') : 'TRUE';
}

/** `EXISTS (…)` over the first hop of `conds` (all share it), correlated with `parentAlias`. */
function relatedExists(conds: Condition[], params: Params, parentAlias: string | undefined, depth: number): string {
  if (!parentAlias) throw new Error('relatedExists: a relationship filter needs a table alias');
  const rel = conds[0].ref.hops[0];
  const alias = `r${depth + 1}`;
  const rest: Condition[] = conds.map((c) => ({ ...c, ref: { ...c.ref, hops: c.ref.hops.slice(1) } }));
  const inner = buildWhere(rel.target, { conditions: rest }, params, { deleted: 'exclude', alias, depth: depth + 1 });
  const target = `${qualified(rel.target.schemaName, rel.target.physicalName)} AS ${ident(alias)}`;
  if (rel.kind === 'many') {
    const j = rel.through!;
    const ja = `j${depth + 1}`;
    const join = `${qualified(j.table.schemaName, j.table.physicalName)} AS ${ident(ja)}`;
    const on = `${fieldExpr(j.table, j.targetField, ja)} = ${fieldExpr(rel.target, rel.targetField, alias)}`;
    const link = `${fieldExpr(j.table, j.fromField, ja)} = ${fieldExpr(rel.from, rel.fromField, parentAlias)}`;
    return `EXISTS (SELECT 1 FROM ${join} JOIN ${target} ON ${on} WHERE ${link} AND ${inner})`;
  }
  // forward and reverse alike: the target's field equals the parent's field (null never equals).
  const link = `${fieldExpr(rel.target, rel.targetField, alias)} = ${fieldExpr(rel.from, rel.fromField, parentAlias)}`;
  return `EXISTS (SELECT 1 FROM ${target} WHERE ${link} AND ${inner})`;
}
