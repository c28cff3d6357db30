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

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The single value of a query parameter (the last one when repeated). */
export function param(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/** Beyond this a page number only produces offsets PostgreSQL refuses (bigint overflow → 500). */
export const MAX_PAGE = 1_000_000;

function positiveInt(query: Query, name: string, fallback: number): number {
  const raw = param(query, name)?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw errors.field(name, `"${raw}" is not a positive whole number.`);
  return Number(raw);
}

export function parsePage(query: Query, defaults = { pageSize: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE }): PageRequest {
  const page = positiveInt(query, 'page', 1);
  if (page > MAX_PAGE) throw errors.field('page', `Page numbers stop at ${MAX_PAGE}.`);
  // A page size above the maximum is clamped, not refused (DECISIONS §4).
  const pageSize = Math.min(positiveInt(query, 'page_size', defaults.pageSize), defaults.max);
  return { page, pageSize, offset: (page - 1) * pageSize };
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
 * `ordering=name,-created_at` against a whitelist mapping API field → column. Unknown
 * fields answer 400 naming them.
 */
export function parseOrdering(query: Query, allowed: Record<string, string>, fallback: string): OrderBy[] {
  const raw = param(query, 'ordering') || fallback;
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

export function parseSearch(query: Query): string | undefined {
  const raw = param(query, 'search')?.trim();
  if (!raw) return undefined;
  if (raw.length > 200) throw errors.field('search', 'Search text is limited to 200 characters.');
  return raw;
}
