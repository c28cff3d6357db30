// The non-filter parameters of a record list (docs/data-service.md "Sorting and pagination",
// "Full-text search"): checked against the table's model into a ListQuery.
import type { Query } from '../../core/listing.js';
import { param } from '../../core/listing.js';
import type { DataTable, FieldModel } from '../model/table-model.js';
import { fieldOf } from '../model/table-model.js';
import { dataErrors } from '../data-errors.js';
import type { DeletedMode, RelationContext } from './filter.js';
import type { Relationship } from '../relations/relationship-model.js';
import { textValue } from './filter-values.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
/** Offsets beyond this only produce empty pages; bigint stays far away. */
const MAX_OFFSET = 1_000_000_000_000;
const MAX_SEARCH_LENGTH = 1000;

export interface SortKey {
  /** A schema field, or null for `rank` (relevance of a search). */
  field: FieldModel | null;
  desc: boolean;
  /** Forward relationships leading to `field`'s table (`_sort=author.name`); absent for own fields. */
  hops?: Relationship[];
}

export interface Paging {
  /** page: `{page, page_size}` in the answer; range: `{meta}` (`_start`/`_end`). */
  style: 'page' | 'range';
  offset: number;
  limit: number;
}

/** Hierarchy parameters reach the flat list only by mistake (the list route sends them to hierarchy.ts). */
export function refuseLater(query: Query): void {
  const format = param(query, 'format');
  if (format !== undefined && format !== 'flat') throw dataErrors.invalidParam('format', `"${format.slice(0, 20)}" is not available here.`);
  for (const name of ['include', 'depth']) {
    if (query[name] !== undefined) throw dataErrors.invalidParam(name, `"${name}" applies to format=tree or format=graph.`);
  }
}

function wholeNumber(query: Query, name: string, min: number): number | undefined {
  const raw = param(query, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) < min) {
    throw dataErrors.invalidParam(name, `"${raw.slice(0, 40)}" is not a whole number of at least ${min}.`);
  }
  const n = Number(raw);
  if (n > MAX_OFFSET) throw dataErrors.invalidParam(name, `At most ${MAX_OFFSET}.`);
  return n;
}

export function parsePaging(query: Query): Paging {
  const start = wholeNumber(query, '_start', 0);
  const end = wholeNumber(query, '_end', 0);
  if (start !== undefined || end !== undefined) {
    const s = start ?? 0;
    const e = end ?? s + DEFAULT_PAGE_SIZE;
    if (e < s) throw dataErrors.invalidParam('_end', '"_end" must not be less than "_start".');
    return { style: 'range', offset: s, limit: Math.min(e - s, MAX_PAGE_SIZE) };
  }
  const limit = wholeNumber(query, 'limit', 1);
  const offset = wholeNumber(query, 'offset', 0);
  if (limit !== undefined || offset !== undefined) {
    return { style: 'page', offset: offset ?? 0, limit: Math.min(limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) };
  }
  const page = wholeNumber(query, 'page', 1) ?? 1;
  const size = Math.min(wholeNumber(query, 'page_size', 1) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  if ((page - 1) * size > MAX_OFFSET) throw dataErrors.invalidParam('page', 'Page number too large.');
  return { style: 'page', offset: (page - 1) * size, limit: size };
}

function sortField(table: DataTable, param: string, name: string, searching: boolean, rels?: RelationContext): Omit<SortKey, 'desc'> {
  if (name.includes('.')) return relatedSortField(table, param, name, rels);
  if (name === 'rank' && searching && !fieldOf(table.model, 'rank')) return { field: null };
  const field = fieldOf(table.model, name);
  if (!field) throw dataErrors.invalidParam(param, `Unknown field "${name}".`);
  return { field };
}

/** `author.name`, `author.country.name`: forward relationships only, at most the hop limit. */
function relatedSortField(table: DataTable, param: string, name: string, rels?: RelationContext): Omit<SortKey, 'desc'> {
  if (!rels) throw dataErrors.invalidParam(param, 'Sorting by a related field is not supported here.');
  if (table.provider === 'jsonb') throw dataErrors.invalidParam(param, 'Sorting by a related field needs the flat_table provider.');
  const segs = name.split('.');
  if (segs.some((s) => s === '')) throw dataErrors.invalidParam(param, `Empty segment in "${name.slice(0, 100)}".`);
  if (segs.length - 1 > rels.maxDepth) throw dataErrors.invalidParam(param, `At most ${rels.maxDepth} relationship hops.`);
  const hops: Relationship[] = [];
  let at = table;
  for (const seg of segs.slice(0, -1)) {
    const rel = rels.model.get(at.name)?.get(seg);
    if (!rel) throw dataErrors.invalidParam(param, `Unknown relationship "${seg.slice(0, 100)}" of table "${at.name}".`);
    if (rel.kind !== 'forward') throw dataErrors.invalidParam(param, `"${seg}" is not a forward relationship: only those can sort.`);
    hops.push(rel);
    at = rel.target;
  }
  const leaf = segs[segs.length - 1];
  const field = fieldOf(at.model, leaf);
  if (!field) throw dataErrors.invalidParam(param, `Unknown field "${leaf.slice(0, 100)}" of table "${at.name}".`);
  return { field, hops };
}

/** `ordering=-views,title` or `_sort=views,title&_order=desc,asc`; `rank` sorts by relevance. */
export function parseSort(table: DataTable, query: Query, searching: boolean, rels?: RelationContext): SortKey[] {
  const ordering = param(query, 'ordering');
  const keys: SortKey[] = [];
  if (ordering !== undefined && ordering.trim() !== '') {
    for (const raw of ordering.split(',').map((s) => s.trim())) {
      const desc = raw.startsWith('-');
      const name = desc || raw.startsWith('+') ? raw.slice(1) : raw;
      keys.push({ ...sortField(table, 'ordering', name, searching, rels), desc });
    }
    return keys;
  }
  const sort = param(query, '_sort');
  if (sort === undefined || sort.trim() === '') return keys;
  const names = sort.split(',').map((s) => s.trim());
  const orders = (param(query, '_order') ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (orders.length > 1 && orders.length !== names.length) {
    throw dataErrors.invalidParam('_order', 'Give one direction for all fields or one per field.');
  }
  names.forEach((name, i) => {
    const dir = orders.length === 0 ? 'asc' : orders[orders.length === 1 ? 0 : i];
    if (dir !== 'asc' && dir !== 'desc') throw dataErrors.invalidParam('_order', `"${dir.slice(0, 20)}" is not asc or desc.`);
    keys.push({ ...sortField(table, '_sort', name, searching, rels), desc: dir === 'desc' });
  });
  return keys;
}

/** The search text, or null; 400 on a table without search fields. */
export function parseSearch(table: DataTable, query: Query): string | null {
  const raw = param(query, 'search');
  if (raw === undefined || raw.trim() === '') return null;
  if (!table.model.search) throw dataErrors.invalidParam('search', `Table "${table.name}" has no search fields.`);
  let text: string;
  try {
    text = textValue(raw);
  } catch (e) {
    throw dataErrors.invalidParam('search', (e as Error).message);
  }
  if (text.length > MAX_SEARCH_LENGTH) throw dataErrors.invalidParam('search', `At most ${MAX_SEARCH_LENGTH} characters.`);
  return text;
}

function flag(query: Query, name: string): boolean {
  const raw = param(query, name);
  if (raw === undefined || raw === '') return false;
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw dataErrors.invalidParam(name, `"${raw.slice(0, 40)}" is not true or false.`);
}

/** `include_deleted` / `only_deleted` (only wins when both are set). */
export function parseDeleted(query: Query): DeletedMode {
  if (flag(query, 'only_deleted')) return 'only';
  return flag(query, 'include_deleted') ? 'include' : 'exclude';
}
