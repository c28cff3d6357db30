// Parsed filter conditions → SQL. Expressions come from the model (field-expr.ts), values
// are bound with an explicit cast to the field's type, so the text of a query depends only
// on which fields and operators are used (one prepared plan per shape). Negated operators
// (`ne`, `nin`, `ncontains`, …) keep rows whose value is null, as `IS DISTINCT FROM` does.
import type { DataTable } from '../model/table-model.js';
import { fieldOf } from '../model/table-model.js';
import type { Params } from '../sql.js';
import { fieldExpr, isJsonType, prefixOf, sqlTypeOf, textExpr } from './field-expr.js';
import type { Condition, DeletedMode, Operator } from './filter-model.js';

const CMP: Partial<Record<Operator, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };
const NEGATED = new Set<Operator>(['nbetween', 'nin', 'nina', 'ncontains', 'nicontains', 'nstartswith', 'nendswith']);

/** jsonb store: only this table's rows. */
export function tableCondition(table: DataTable, params: Params, alias?: string): string | null {
  return table.provider === 'jsonb' ? `${prefixOf(alias)}"table_id" = ${params.add(table.id)}` : null;
}

export function deletedCondition(table: DataTable, mode: DeletedMode, alias?: string): string | null {
  if (mode === 'include') return null;
  const field = table.model.softDelete ? fieldOf(table.model, 'is_deleted') : undefined;
  // Without soft delete no row is deleted: `only` selects nothing.
  if (!field) return mode === 'only' ? 'FALSE' : null;
  const e = fieldExpr(table, field, alias);
  const value = table.provider === 'jsonb' ? `coalesce(${e}, false)` : e;
  return mode === 'only' ? `${value} = true` : `${value} = false`;
}

/** The positive form of a text operator over expression `x` and bound text `v`. */
function textMatch(op: Operator, x: string, v: string): string {
  switch (op) {
    case 'contains':
    case 'containss':
    case 'ncontains':
      return `strpos(${x}, ${v}) > 0`;
    case 'icontains':
    case 'nicontains':
      return `strpos(lower(${x}), lower(${v})) > 0`;
    case 'startswith':
    case 'startswiths':
    case 'nstartswith':
      return `starts_with(${x}, ${v})`;
    case 'istartswith':
      return `starts_with(lower(${x}), lower(${v}))`;
    case 'endswith':
    case 'endswiths':
    case 'nendswith':
      return `right(${x}, char_length(${v})) = ${v}`;
    case 'iendswith':
      return `right(lower(${x}), char_length(${v})) = lower(${v})`;
    case 'ina':
    case 'nina':
      return `lower(${x}) IN (SELECT lower(u) FROM unnest(${v}) AS u)`;
    default:
      return `${x} = ANY(${v})`;
  }
}

const negate = (op: Operator, sql: string): string => (NEGATED.has(op) ? `NOT coalesce(${sql}, false)` : sql);

function nullTest(expr: string, json: boolean, isNull: boolean): string {
  const e = json ? `nullif(${expr}, 'null'::jsonb)` : expr;
  return `${e} IS ${isNull ? '' : 'NOT '}NULL`;
}

/** A condition on a column of the field's own type (not JSON). */
function scalarSql(table: DataTable, c: Condition, params: Params, alias?: string): string {
  const field = c.ref.field;
  const e = fieldExpr(table, field, alias);
  const t = sqlTypeOf(field);
  const o = c.operand;
  switch (o.kind) {
    case 'flag':
      return nullTest(e, false, c.op === 'null' ? o.value : !o.value);
    case 'scalar': {
      const v = `${params.add(o.value)}::${t}`;
      if (c.op === 'eq') return `${e} = ${v}`;
      if (c.op === 'ne') return `${e} IS DISTINCT FROM ${v}`;
      return `${e} ${CMP[c.op]} ${v}`;
    }
    case 'range':
      return negate(c.op, `${e} BETWEEN ${params.add(o.min)}::${t} AND ${params.add(o.max)}::${t}`);
    case 'list':
      return negate(c.op, `${e} = ANY(${params.add(o.values)}::${t}[])`);
    case 'texts':
      return negate(c.op, textMatch(c.op, textExpr(table, field, alias), `${params.add(o.values)}::text[]`));
    case 'text':
      return negate(c.op, textMatch(c.op, textExpr(table, field, alias), `${params.add(o.value)}::text`));
    default:
      throw new Error(`scalarSql: unexpected operand ${o.kind}`);
  }
}

/** A condition on a JSON field or a path inside one. */
function jsonSql(table: DataTable, c: Condition, params: Params, alias?: string): string {
  const base = fieldExpr(table, c.ref.field, alias);
  const nested = c.ref.path.length > 0;
  const path = nested ? `${params.add(c.ref.path)}::text[]` : '';
  const j = nested ? `(${base} #> ${path})` : base;
  const tx = nested ? `(${base} #>> ${path})` : `(${base} #>> '{}')`;
  const o = c.operand;
  switch (o.kind) {
    case 'flag':
      return nullTest(j, true, c.op === 'null' ? o.value : !o.value);
    case 'json': {
      const v = `${params.add(o.value)}::jsonb`;
      if (c.op === 'eq') return `${j} = ${v}`;
      if (c.op === 'ne') return `${j} IS DISTINCT FROM ${v}`;
      return `${j} ${c.op === 'contains' ? '@>' : '<@'} ${v}`;
    }
    case 'text':
      if (c.op === 'has_key') return `${j} ? ${params.add(o.value)}::text`;
      return negate(c.op, textMatch(c.op, tx, `${params.add(o.value)}::text`));
    case 'texts':
      if (c.op === 'has_any_keys' || c.op === 'has_all_keys')
        return `${j} ${c.op === 'has_any_keys' ? '?|' : '?&'} ${params.add(o.values)}::text[]`;
      return negate(c.op, textMatch(c.op, tx, `${params.add(o.values)}::text[]`));
    case 'loose': {
      // Numbers compare with JSON numbers, text with JSON strings: never one as the other.
      const x = o.numeric
        ? `(CASE WHEN jsonb_typeof(${j}) = 'number' THEN (${j})::numeric END)`
        : `(CASE WHEN jsonb_typeof(${j}) = 'string' THEN ${tx} END)`;
      const cast = o.numeric ? 'numeric' : 'text';
      const vs = o.values.map((v) => `${params.add(v)}::${cast}`);
      if (CMP[c.op]) return `${x} ${CMP[c.op]} ${vs[0]}`;
      return negate(c.op, `${x} BETWEEN ${vs[0]} AND ${vs[1]}`);
    }
    default:
      throw new Error(`jsonSql: unexpected operand ${o.kind}`);
  }
}

export function buildCondition(table: DataTable, c: Condition, params: Params, alias?: string): string {
  if (c.ref.hops.length > 0) throw new Error('buildCondition: relationship conditions are built by buildWhere');
  return c.ref.path.length > 0 || isJsonType(c.ref.field.type) ? jsonSql(table, c, params, alias) : scalarSql(table, c, params, alias);
}
