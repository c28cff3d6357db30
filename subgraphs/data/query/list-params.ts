// The non-filter parameters of a record list (docs/data-service.md "Sorting and pagination",
// "Full-text search"): checked against the table's model into a ListQuery. Each rule takes the
// typed input (RecordListInput, query/record-list-input.ts) both transports build; the
// `parse…(query)` forms read a REST query string into it first (aggregate, hierarchy, tests).
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

/** Page, range or offset of a list: the numbers as given (each checked by pagingOf). */
export interface PagingInput {
  page?: number | null;
  pageSize?: number | null;
  limit?: number | null;
  offset?: number | null;
  /** `_start` / `_end` (a range: `{meta}` in the REST answer). */
  start?: number | null;
  end?: number | null;
}

const notWhole = (name: string, shown: string, min: number) =>
  dataErrors.invalidParam(name, `"${shown.slice(0, 40)}" is not a whole number of at least ${min}.`);

/** A number of the typed input: whole, at least `min`, at most MAX_OFFSET (errors name the REST parameter). */
function whole(name: string, n: number | null | undefined, min: number): number | undefined {
  if (n == null) return undefined;
  if (!Number.isInteger(n) || n < min) throw notWhole(name, String(n), min);
  if (n > MAX_OFFSET) throw dataErrors.invalidParam(name, `At most ${MAX_OFFSET}.`);
  return n;
}

/** A query parameter as a whole number (digits only), held to the same rules as whole(). */
function wholeNumber(query: Query, name: string, min: number): number | undefined {
  const raw = param(query, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,16}$/.test(raw) || Number(raw) < min) throw notWhole(name, raw, min);
  return whole(name, Number(raw), min);
}

/**
 * The REST paging parameters as a typed input: `_start`/`_end`, else `limit`/`offset`, else
 * `page`/`page_size` (the parameters of a style that does not apply are not read).
 */
export function pagingFromQuery(query: Query): PagingInput {
  const start = wholeNumber(query, '_start', 0);
  const end = wholeNumber(query, '_end', 0);
  if (start !== undefined || end !== undefined) return { start, end };
  const limit = wholeNumber(query, 'limit', 1);
  const offset = wholeNumber(query, 'offset', 0);
  if (limit !== undefined || offset !== undefined) return { limit, offset };
  return { page: wholeNumber(query, 'page', 1), pageSize: wholeNumber(query, 'page_size', 1) };
}

/** `_start`/`_end` win over `limit`/`offset`, which win over `page`/`page_size`. */
export function pagingOf(input: PagingInput): Paging {
  const start = whole('_start', input.start, 0);
  const end = whole('_end', input.end, 0);
  if (start !== undefined || end !== undefined) {
    const s = start ?? 0;
    const e = end ?? s + DEFAULT_PAGE_SIZE;
    if (e < s) throw dataErrors.invalidParam('_end', '"_end" must not be less than "_start".');
    return { style: 'range', offset: s, limit: Math.min(e - s, MAX_PAGE_SIZE) };
  }
  const limit = whole('limit', input.limit, 1);
  const offset = whole('offset', input.offset, 0);
  if (limit !== undefined || offset !== undefined) {
    return { style: 'page', offset: offset ?? 0, limit: Math.min(limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) };
  }
  const page = whole('page', input.page, 1) ?? 1;
  const size = Math.min(whole('page_size', input.pageSize, 1) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  if ((page - 1) * size > MAX_OFFSET) throw dataErrors.invalidParam('page', 'Page number too large.');
  return { style: 'page', offset: (page - 1) * size, limit: size };
}

export function parsePaging(query: Query): Paging {
  return pagingOf(pagingFromQuery(query));
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

/** How a list is sorted: `ordering` (`-views,title`), else `_sort`/`_order` (`views,title` / `desc,asc`). */
export interface SortInput {
  ordering?: string | null;
  sort?: string | null;
  order?: string | null;
}

export const sortFromQuery = (query: Query): SortInput => ({
  ordering: param(query, 'ordering'),
  sort: param(query, '_sort'),
  order: param(query, '_order'),
});

/** `ordering=-views,title` or `_sort=views,title&_order=desc,asc`; `rank` sorts by relevance. */
export function sortOf(table: DataTable, input: SortInput, searching: boolean, rels?: RelationContext): SortKey[] {
  const ordering = input.ordering ?? undefined;
  const keys: SortKey[] = [];
  if (ordering !== undefined && ordering.trim() !== '') {
    for (const raw of ordering.split(',').map((s) => s.trim())) {
      const desc = raw.startsWith('-');
      const name = desc || raw.startsWith('+') ? raw.slice(1) : raw;
      keys.push({ ...sortField(table, 'ordering', name, searching, rels), desc });
    }
    return keys;
  }
  const sort = input.sort ?? undefined;
  if (sort === undefined || sort.trim() === '') return keys;
  const names = sort.split(',').map((s) => s.trim());
  const orders = (input.order ?? '')
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

export function parseSort(table: DataTable, query: Query, searching: boolean, rels?: RelationContext): SortKey[] {
  return sortOf(table, sortFromQuery(query), searching, rels);
}

/** The search text, or null; 400 on a table without search fields. */
export function searchOf(table: DataTable, raw: string | null | undefined): string | null {
  if (raw == null || raw.trim() === '') return null;
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

export function parseSearch(table: DataTable, query: Query): string | null {
  return searchOf(table, param(query, 'search'));
}

/** Which rows a read or write sees: live ones (default), also soft-deleted ones, or only those. */
export interface DeletedFlags {
  includeDeleted?: boolean | null;
  onlyDeleted?: boolean | null;
}

/** `onlyDeleted` wins when both are set. */
export function deletedModeOf(flags: DeletedFlags): DeletedMode {
  if (flags.onlyDeleted) return 'only';
  return flags.includeDeleted ? 'include' : 'exclude';
}

/** `include_deleted` / `only_deleted` as given (a blank value reads as false, an absent one as unset). */
export function deletedFlagsFromQuery(query: Query): DeletedFlags {
  const onlyDeleted = query.only_deleted !== undefined ? flag(query, 'only_deleted') : undefined;
  // Once only_deleted is set, include_deleted changes nothing (and is not read).
  if (onlyDeleted) return { onlyDeleted };
  const includeDeleted = query.include_deleted !== undefined ? flag(query, 'include_deleted') : undefined;
  return { includeDeleted, onlyDeleted };
}

/** `include_deleted` / `only_deleted` (only wins when both are set). */
export function parseDeleted(query: Query): DeletedMode {
  return deletedModeOf(deletedFlagsFromQuery(query));
}
