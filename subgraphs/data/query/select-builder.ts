// SELECTs of record reads for both providers. flat_table: the table's own columns. jsonb: the
// app's store rows of this table (`table_id`), fields inside `data`. The total is a window
// count in the same query; a search adds `rank` and, over the returned page only, `excerpt`.
import type { DataTable, FieldModel } from '../model/table-model.js';
import type { Relationship } from '../relations/relationship-model.js';
import { SEARCH_VECTOR } from '../model/table-model.js';
import { storeRecordId } from '../records/record-sql.js';
import { ident, Params, qualified, type SqlText } from '../sql.js';
import { fieldExpr, prefixOf, sqlTypeOf } from './field-expr.js';
import { buildWhere, type DeletedMode, type FilterNode } from './filter.js';
import type { Paging, SortKey } from './list-params.js';

export interface ListSpec {
  filter: FilterNode;
  deleted: DeletedMode;
  sort: SortKey[];
  search: string | null;
  paging: Paging;
}

const WEIGHTS = new Set(['A', 'B', 'C', 'D']);
const HEADLINE_OPTIONS = 'StartSel=<mark>, StopSel=</mark>, MaxFragments=3, MaxWords=35, MinWords=15';

/** The columns a record is read from. */
function columns(table: DataTable, alias: string): string {
  const p = prefixOf(alias);
  if (table.provider === 'jsonb') return `${p}"record_id", ${p}"data", ${p}"seq"`;
  return table.model.fields.map((f) => p + ident(f.name)).join(', ');
}

/** The search vector: the generated column (flat_table) or computed from `data` (jsonb). */
function searchVector(table: DataTable, alias: string, lang: string): string {
  const search = table.model.search!;
  if (table.provider === 'flat_table') return prefixOf(alias) + ident(SEARCH_VECTOR);
  const terms = search.fields
    .map((s) => {
      const field = table.model.fields.find((f) => f.name === s.name)!;
      if (!WEIGHTS.has(s.weight)) throw new Error(`Invalid search weight ${s.weight}`);
      return `setweight(to_tsvector(${lang}, coalesce(${fieldExpr(table, field, alias)}, '')), '${s.weight}')`;
    })
    .join(' || ');
  return `(${terms})`;
}

/**
 * The value of `field` reached through forward relationships `hops` from alias `parent`: a
 * scalar subquery per hop (a forward relationship reaches at most one row), null when a key is
 * null, so such rows stay in the answer and sort last.
 */
function relatedValue(hops: Relationship[], field: FieldModel, parent: string, depth: number): string {
  const [rel, ...rest] = hops;
  const alias = `s${depth}`;
  const value = rest.length ? relatedValue(rest, field, alias, depth + 1) : fieldExpr(rel.target, field, alias);
  const link = `${fieldExpr(rel.target, rel.targetField, alias)} = ${fieldExpr(rel.from, rel.fromField, parent)}`;
  return `(SELECT ${value} FROM ${qualified(rel.target.schemaName, rel.target.physicalName)} AS ${ident(alias)} WHERE ${link})`;
}

/** ORDER BY over alias `alias` (`rank` is the output column): the requested keys, then the key (or store sequence) for stable pages. */
function orderBy(table: DataTable, spec: ListSpec, alias: string): string {
  const keys = spec.sort.length === 0 && spec.search ? [{ field: null, desc: true }] : spec.sort;
  const parts = keys.map((k) => {
    if (k.hops?.length) return `${relatedValue(k.hops, k.field!, alias, 1)}${k.desc ? ' DESC' : ''} NULLS LAST`;
    return `${k.field ? fieldExpr(table, k.field, alias) : '"rank"'}${k.desc ? ' DESC' : ''}`;
  });
  if (table.provider === 'jsonb') parts.push(prefixOf(alias) + '"seq"');
  else for (const name of table.model.primaryKey) parts.push(prefixOf(alias) + ident(name));
  return parts.join(', ');
}

function whereOf(table: DataTable, spec: ListSpec, params: Params, lang: string, query: string): string {
  const where = buildWhere(table, spec.filter, params, { deleted: spec.deleted, alias: 't' });
  return spec.search ? `${where} AND ${searchVector(table, 't', lang)} @@ ${query}` : where;
}

/** One page of records with `__total` (and `rank`, `excerpt` when searching). */
export function listSql(table: DataTable, spec: ListSpec): SqlText {
  const params = new Params();
  const lang = spec.search ? `${params.add(table.model.search!.language)}::regconfig` : '';
  const query = spec.search ? `websearch_to_tsquery(${lang}, ${params.add(spec.search)})` : '';
  const where = whereOf(table, spec, params, lang, query);
  const rank = spec.search ? `, ts_rank(${searchVector(table, 't', lang)}, ${query}) AS "rank"` : '';
  const from = `${qualified(table.schemaName, table.physicalName)} AS "t"`;
  const limit = params.add(spec.paging.limit);
  const offset = params.add(spec.paging.offset);
  const inner =
    `SELECT ${columns(table, 't')}${rank}, count(*) OVER () AS "__total" FROM ${from} WHERE ${where} ` +
    `ORDER BY ${orderBy(table, spec, 't')} LIMIT ${limit} OFFSET ${offset}`;
  if (!spec.search) return { text: inner, values: params.values };
  const text = table.model.search!.fields.map((s) =>
    fieldExpr(
      table,
      table.model.fields.find((f) => f.name === s.name)!,
      'p',
    ),
  );
  const excerpt = `ts_headline(${lang}, concat_ws(' ', ${text.join(', ')}), ${query}, '${HEADLINE_OPTIONS}') AS "excerpt"`;
  return { text: `SELECT "p".*, ${excerpt} FROM (${inner}) AS "p" ORDER BY ${orderBy(table, spec, 'p')}`, values: params.values };
}

/** The exact total alone, for a page past the end (the window count has no row to ride on). */
export function countSql(table: DataTable, spec: ListSpec): SqlText {
  const params = new Params();
  const lang = spec.search ? `${params.add(table.model.search!.language)}::regconfig` : '';
  const query = spec.search ? `websearch_to_tsquery(${lang}, ${params.add(spec.search)})` : '';
  const where = whereOf(table, spec, params, lang, query);
  return {
    text: `SELECT count(*) AS "n" FROM ${qualified(table.schemaName, table.physicalName)} AS "t" WHERE ${where}`,
    values: params.values,
  };
}

/** One record by its key values (from parseRecordId). */
export function getSql(table: DataTable, key: unknown[], deleted: DeletedMode): SqlText {
  const params = new Params();
  const where = [buildWhere(table, { conditions: [] }, params, { deleted, alias: 't' })];
  if (table.provider === 'jsonb') {
    where.push(`"t"."record_id" = ${params.add(storeRecordId(table.model, key))}`);
  } else {
    table.model.primaryKey.forEach((name, i) => {
      const field = table.model.fields.find((f) => f.name === name)!;
      where.push(`"t".${ident(name)} = ${params.add(key[i])}::${sqlTypeOf(field)}`);
    });
  }
  const text = `SELECT ${columns(table, 't')} FROM ${qualified(table.schemaName, table.physicalName)} AS "t" WHERE ${where.filter((w) => w !== 'TRUE').join(' AND ')}`;
  return { text, values: params.values };
}
