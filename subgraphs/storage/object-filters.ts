// The object list's query parameters (seed 2 "Object list parameters") as one parameterised
// WHERE clause and ORDER BY on storage_objects `o`. Every value is bound; column names come from
// fixed tables below. Parameters outside the table are ignored, malformed values answer 400.
import { param, type Query } from '../core/listing.js';
import { storageErrors } from './storage-errors.js';
import type { SqlWhere } from './storage.repository.js';

export interface ListScope {
  siteId: number;
  bucketId: number;
  /** The caller's user id (created_by_me, modified_by_me); null when not a user. */
  userId: number | null;
  /** Only objects readable without private access (anonymous and non-owner readers of a public bucket). */
  publicOnly: boolean;
}

const ORDERINGS: Record<string, string> = {
  created_at: 'o.created_at',
  updated_at: 'o.updated_at',
  size: 'o.size',
  filename: 'o.filename',
  path: 'o.file_path',
  file: 'o.file_path',
};

const MAX_TEXT = 1024;
const CATEGORIES = new Set(['image', 'video', 'audio', 'application', 'text']);

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

export function parseOrderingParam(raw: string | undefined, fallback = '-created_at'): string {
  const parts = (raw?.trim() ? raw : fallback).split(',').slice(0, 3);
  const out: string[] = [];
  for (const p of parts) {
    const name = p.trim().replace(/^-/, '');
    const col = ORDERINGS[name];
    if (!col)
      throw storageErrors.validation({ ordering: [`"${p.trim().slice(0, 50)}" is not one of ${Object.keys(ORDERINGS).join(', ')}.`] });
    out.push(`${col} ${p.trim().startsWith('-') ? 'DESC' : 'ASC'}`);
  }
  out.push('o.id ASC');
  return out.join(', ');
}

export function buildObjectFilter(query: Query, scope: ListScope): SqlWhere {
  const params: unknown[] = [scope.siteId, scope.bucketId];
  const clauses = ['o.site_id = $1', 'o.bucket_id = $2'];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(params.length));
  };
  const text = (name: string): string | undefined => {
    const v = param(query, name);
    if (v === undefined || v === '') return undefined;
    if (v.length > MAX_TEXT) throw storageErrors.validation({ [name]: [`must be at most ${MAX_TEXT} characters`] });
    return v;
  };
  const integer = (name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined => {
    const v = text(name);
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v.trim()) || Number(v) < min || Number(v) > max) {
      throw storageErrors.validation({ [name]: [`"${v.slice(0, 50)}" is not a whole number between ${min} and ${max}`] });
    }
    return Number(v);
  };
  const datetime = (name: string): Date | undefined => {
    const v = text(name);
    if (v === undefined) return undefined;
    const d = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v.trim()) ? new Date(v.trim().replace(' ', 'T')) : null;
    if (!d || Number.isNaN(d.getTime())) throw storageErrors.validation({ [name]: [`"${v.slice(0, 50)}" is not an ISO 8601 date-time`] });
    return d;
  };
  const boolean = (name: string): boolean | undefined => {
    const v = text(name)?.toLowerCase();
    if (v === undefined) return undefined;
    if (['true', '1', 'yes'].includes(v)) return true;
    if (['false', '0', 'no'].includes(v)) return false;
    throw storageErrors.validation({ [name]: ['must be true or false'] });
  };
  const iLike = (name: string, col: string, pattern: (v: string) => string) => {
    const v = text(name);
    if (v !== undefined) add((n) => `lower(${col}) LIKE $${n}`, pattern(escapeLike(v.toLowerCase())));
  };
  const contains = (v: string) => `%${v}%`;
  const starts = (v: string) => `${v}%`;
  const ends = (v: string) => `%${v}`;

  if (scope.publicOnly) clauses.push(`o.visibility IS DISTINCT FROM 'private'`);

  const search = text('search');
  if (search !== undefined) {
    const p = contains(escapeLike(search.toLowerCase()));
    add((n) => `(lower(o.filename) LIKE $${n} OR lower(o.file_path) LIKE $${n})`, p);
  }
  const file = text('file');
  if (file !== undefined) add((n) => `o.file_path = $${n}`, file.replace(/^\/+/, ''));
  for (const name of ['prefix', 'file__startswith']) {
    const v = text(name);
    if (v !== undefined) add((n) => `o.file_path LIKE $${n}`, `${escapeLike(v.replace(/^\/+/, ''))}%`);
  }
  iLike('file__istartswith', 'o.file_path', starts);
  iLike('file__icontains', 'o.file_path', contains);
  const filename = text('filename');
  if (filename !== undefined) add((n) => `o.filename = $${n}`, filename);
  iLike('filename__icontains', 'o.filename', contains);
  iLike('filename__istartswith', 'o.filename', starts);
  iLike('filename__iendswith', 'o.filename', ends);

  const sizeOps: [string, string][] = [
    ['size__gte', '>='],
    ['min_size', '>='],
    ['size__lte', '<='],
    ['max_size', '<='],
    ['size__gt', '>'],
    ['size__lt', '<'],
  ];
  for (const [name, op] of sizeOps) {
    const v = integer(name);
    if (v !== undefined) add((n) => `o.size ${op} $${n}`, v);
  }

  for (const [col, gte, lte, after, before] of [
    ['created_at', 'created_at__gte', 'created_at__lte', 'created_after', 'created_before'],
    ['updated_at', 'updated_at__gte', 'updated_at__lte', 'modified_after', 'modified_before'],
  ] as const) {
    for (const name of [gte, after]) {
      const d = datetime(name);
      if (d) add((n) => `o.${col} >= $${n}`, d);
    }
    for (const name of [lte, before]) {
      const d = datetime(name);
      if (d) add((n) => `o.${col} <= $${n}`, d);
    }
    // Calendar parts in UTC, as ranges so that the (bucket_id, created_at) index applies.
    const year = integer(`${col}__year`, 1, 9999);
    const month = integer(`${col}__month`, 1, 12);
    const day = integer(`${col}__day`, 1, 31);
    if (year !== undefined)
      add(
        (n) => `o.${col} >= make_timestamptz($${n}, 1, 1, 0, 0, 0, 'UTC') AND o.${col} < make_timestamptz($${n} + 1, 1, 1, 0, 0, 0, 'UTC')`,
        year,
      );
    if (month !== undefined) add((n) => `EXTRACT(MONTH FROM o.${col} AT TIME ZONE 'UTC') = $${n}`, month);
    if (day !== undefined) add((n) => `EXTRACT(DAY FROM o.${col} AT TIME ZONE 'UTC') = $${n}`, day);
  }
  const date = text('created_at__date');
  if (date !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) {
      throw storageErrors.validation({ created_at__date: ['must be a date YYYY-MM-DD'] });
    }
    const start = new Date(`${date}T00:00:00Z`);
    add((n) => `o.created_at >= $${n} AND o.created_at < $${n} + interval '1 day'`, start);
  }

  const mimetype = text('mimetype');
  if (mimetype !== undefined) add((n) => `o.mimetype = $${n}`, mimetype.toLowerCase());
  iLike('mimetype__icontains', 'o.mimetype', contains);
  iLike('mimetype__istartswith', 'o.mimetype', starts);
  const mimeIn = text('mimetype__in');
  if (mimeIn !== undefined) {
    const list = mimeIn
      .split(',')
      .map((m) => m.trim().toLowerCase())
      .filter(Boolean)
      .slice(0, 50);
    add((n) => `o.mimetype = ANY($${n}::text[])`, list);
  }
  const category = text('mimetype_category');
  if (category !== undefined) {
    if (!CATEGORIES.has(category)) throw storageErrors.validation({ mimetype_category: [`must be one of ${[...CATEGORIES].join(', ')}`] });
    add((n) => `o.mimetype LIKE $${n}`, `${category}/%`);
  }
  const visibility = text('visibility');
  if (visibility !== undefined) {
    if (visibility !== 'public' && visibility !== 'private') throw storageErrors.validation({ visibility: ['must be public or private'] });
    add((n) => `o.visibility = $${n}`, visibility);
  }

  for (const [name, col] of [
    ['created_by_me', 'created_by_id'],
    ['modified_by_me', 'modified_by_id'],
  ] as const) {
    const v = boolean(name);
    if (v === undefined) continue;
    if (v) add((n) => `o.${col} = $${n}`, scope.userId ?? -1);
    else add((n) => `o.${col} IS DISTINCT FROM $${n}`, scope.userId ?? -1);
  }
  for (const col of ['created_by', 'modified_by'] as const) {
    const v = integer(col, 1, 2 ** 31 - 1);
    if (v !== undefined) add((n) => `o.${col}_id = $${n}`, v);
  }
  const creator = text('created_by__username');
  if (creator !== undefined) add((n) => `o.created_by_id IN (SELECT u.id FROM users u WHERE u.username = $${n})`, creator);
  for (const [name, col] of [
    ['created_by__username__icontains', 'created_by_id'],
    ['modified_by__username__icontains', 'modified_by_id'],
  ] as const) {
    const v = text(name);
    if (v !== undefined)
      add((n) => `o.${col} IN (SELECT u.id FROM users u WHERE lower(u.username) LIKE $${n})`, contains(escapeLike(v.toLowerCase())));
  }
  const metaSearch = text('metadata_search');
  if (metaSearch !== undefined) add((n) => `lower(o.metadata::text) LIKE $${n}`, contains(escapeLike(metaSearch.toLowerCase())));

  return { sql: clauses.join(' AND '), params };
}
