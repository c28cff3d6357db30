// The parsed form of record filters: operators, field references, operands and conditions.
// filter.ts parses request keys into it; filter-sql.ts builds SQL from it.
import type { FieldModel } from '../model/table-model.js';
import type { Relationship } from '../relations/relationship-model.js';

export const OPERATORS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'nbetween',
  'in',
  'nin',
  'ins',
  'ina',
  'nina',
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
  'null',
  'nnull',
  'contained_by',
  'has_key',
  'has_any_keys',
  'has_all_keys',
] as const;
export type Operator = (typeof OPERATORS)[number];
const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);
export const isOperator = (s: string): s is Operator => OPERATOR_SET.has(s);

/**
 * What a condition reads: `field` of the table reached through `hops` (relationships from the
 * validated model, `author.name`: one hop), then `path` inside a JSON field (`meta__a__b`).
 */
export interface FieldRef {
  hops: Relationship[];
  field: FieldModel;
  path: string[];
}

/** How the operand was checked: the builder binds it accordingly. */
export type Operand =
  | { kind: 'scalar'; value: unknown }
  | { kind: 'list'; values: unknown[] }
  | { kind: 'range'; min: unknown; max: unknown }
  | { kind: 'text'; value: string }
  | { kind: 'texts'; values: string[] }
  | { kind: 'flag'; value: boolean }
  | { kind: 'json'; value: string }
  /** Nested comparisons: numeric when the value is a number, else text. */
  | { kind: 'loose'; numeric: boolean; values: unknown[] };

export interface Condition {
  /** The request key, named in errors. */
  key: string;
  ref: FieldRef;
  op: Operator;
  operand: Operand;
}

/** A conjunction of conditions; `or`/`not` groups and relation joins can extend it later. */
export interface FilterNode {
  conditions: Condition[];
}

export type DeletedMode = 'exclude' | 'include' | 'only';
