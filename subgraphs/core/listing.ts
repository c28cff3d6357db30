// Shared list conventions (seed document 1, DECISIONS §4): page/page_size pagination with
// absolute next/previous links, `search`, `ordering` from a whitelist, boolean filters.
import { errors } from './errors.js';

export type Query = Record<string, string | string[] | undefined>;

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** What a list service returns: the page it served, the total of all matches, the page's items (domain objects). */
export interface ListResult<T> {
  page: PageRequest;
  count: number;
  items: T[];
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The single value of a query parameter (the last one when repeated). */
export function param(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/** Beyond this a page number only produces offsets PostgreSQL refuses (bigint overflow → 500). */
export const MAX_PAGE = 1_000_000;

/**
 * A list request as every transport hands it to a service: REST adapters parse the query
 * string into it once (listInputFromQuery), GraphQL resolvers map their arguments straight
 * to it. Services check the ranges (pageRequest, searchTerm, orderBy), so a value that
 * reaches them from either transport is held to the same rules and the same field errors.
 * A module's own filters extend it (`ListInput & {isActive?: boolean}`).
 */
export interface ListInput {
  page?: number | null;
  pageSize?: number | null;
  search?: string | null;
  /** `name,-created_at`: fields of the service's ordering whitelist. */
  ordering?: string | null;
}

/** How a REST query parameter becomes a filter of a typed list input. */
export type FilterKind = 'string' | 'boolean';

/** `organization_slug` → `organizationSlug`. */
export type CamelCase<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;

/** The filters a REST whitelist `{is_active: 'boolean', role: 'string'}` yields: `{isActive?: boolean; role?: string}`. */
export type ListFilters<F extends Record<string, FilterKind>> = {
  [K in keyof F & string as CamelCase<K>]?: F[K] extends 'boolean' ? boolean : string;
};

const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

function notPositive(field: string, shown: string | number) {
  return errors.field(field, `"${shown}" is not a positive whole number.`);
}

function positiveInt(query: Query, name: string): number | undefined {
  const raw = param(query, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw notPositive(name, raw);
  return Number(raw);
}

/**
 * The REST query string as a typed list input: `page`, `page_size` (positive whole numbers,
 * a page beyond MAX_PAGE refused), `search`, `ordering`, and the filters `allowed` names
 * (booleans as true/false/1/0/yes/no; strings as given, the last one when repeated). The field
 * errors name the REST parameters. Parameters not in `allowed` are ignored, as before.
 */
export function listInputFromQuery<F extends Record<string, FilterKind> = Record<never, FilterKind>>(
  query: Query,
  allowed?: F,
): ListInput & ListFilters<F> {
  const input: Record<string, unknown> = {};
  const page = positiveInt(query, 'page');
  if (page !== undefined && page > MAX_PAGE) throw errors.field('page', `Page numbers stop at ${MAX_PAGE}.`);
  if (page !== undefined) input.page = page;
  const pageSize = positiveInt(query, 'page_size');
  if (pageSize !== undefined) input.pageSize = pageSize;
  const search = param(query, 'search');
  if (search !== undefined) input.search = search;
  const ordering = param(query, 'ordering');
  if (ordering !== undefined) input.ordering = ordering;
  for (const [name, kind] of Object.entries(allowed ?? {})) {
    const value = kind === 'boolean' ? parseBool(query, name) : param(query, name);
    if (value !== undefined) input[camel(name)] = value;
  }
  return input as ListInput & ListFilters<F>;
}

function positive(value: number | null | undefined, field: string, fallback: number): number {
  if (value == null) return fallback;
  if (!Number.isInteger(value) || value < 1) throw notPositive(field, value);
  return value;
}

/**
 * The page a typed input asks for: page ≥ 1 and at most MAX_PAGE, page size ≥ 1 and clamped
 * to the maximum (DECISIONS §4: a larger page size is clamped, not refused). Errors name the
 * REST parameters (`page`, `page_size`) whichever transport the input came from.
 */
export function pageRequest(input: ListInput, defaults = { pageSize: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE }): PageRequest {
  const page = positive(input.page, 'page', 1);
  if (page > MAX_PAGE) throw errors.field('page', `Page numbers stop at ${MAX_PAGE}.`);
  const pageSize = Math.min(positive(input.pageSize, 'page_size', defaults.pageSize), defaults.max);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** REST query → page request in one step (for services that still take a query). */
export function parsePage(query: Query, defaults = { pageSize: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE }): PageRequest {
  return pageRequest(listInputFromQuery(query), defaults);
}

/** Same URL with `page` set (or removed for page 1, as the first link conventionally reads). */
function withPage(absoluteUrl: string, page: number): string {
  const u = new URL(absoluteUrl);
  if (page <= 1) u.searchParams.delete('page');
  else u.searchParams.set('page', String(page));
  return u.toString();
}

export function toPage<T>(absoluteUrl: string, req: PageRequest, count: number, results: T[]): Page<T> {
  const lastPage = Math.max(1, Math.ceil(count / req.pageSize));
  return {
    count,
    next: req.page < lastPage ? withPage(absoluteUrl, req.page + 1) : null,
    previous: req.page > 1 ? withPage(absoluteUrl, Math.min(req.page - 1, lastPage)) : null,
    results,
  };
}

export function parseBool(query: Query, name: string): boolean | undefined {
  const raw = param(query, name);
  if (raw === undefined || raw === '') return undefined;
  const v = raw.toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw errors.field(name, `"${raw}" is not a boolean (use true or false).`);
}

export interface OrderBy {
  field: string;
  column: string;
  desc: boolean;
}

/**
 * `name,-created_at` against a whitelist mapping API field → column (empty or absent: the
 * fallback). Unknown fields answer 400 naming them.
 */
export function orderBy(ordering: string | null | undefined, allowed: Record<string, string>, fallback: string): OrderBy[] {
  const raw = ordering || fallback;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const desc = item.startsWith('-');
      const field = desc ? item.slice(1) : item;
      // Own keys only: `__proto__` or `constructor` must not reach the SQL as a "column".
      const column = Object.hasOwn(allowed, field) ? allowed[field] : undefined;
      if (typeof column !== 'string') {
        throw errors.field('ordering', `Cannot order by "${field}". Allowed: ${Object.keys(allowed).join(', ')}.`);
      }
      return { field, column, desc };
    });
}

/** `ordering=name,-created_at` from a REST query (see orderBy). */
export function parseOrdering(query: Query, allowed: Record<string, string>, fallback: string): OrderBy[] {
  return orderBy(param(query, 'ordering'), allowed, fallback);
}

/** Search text trimmed (blank: no search), at most 200 characters. */
export function searchTerm(search: string | null | undefined): string | undefined {
  const raw = search?.trim();
  if (!raw) return undefined;
  if (raw.length > 200) throw errors.field('search', 'Search text is limited to 200 characters.');
  return raw;
}

export function parseSearch(query: Query): string | undefined {
  return searchTerm(param(query, 'search'));
}
