// Read-only queries on apps (raw SQL: the site access predicate joins in).
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import type { OrderBy, PageRequest } from '../core/listing.js';
import type { SqlFragment } from './access.service.js';

export interface AppRow {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  description: string;
  siteId: number;
  siteUuid: string;
  isActive: boolean;
  isDeleted: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface AppFilter {
  /** Predicate on alias `s` (the app's site); its placeholders come first. */
  access: SqlFragment;
  /** Apps of this site only (the tenant of the host); null on a platform host. */
  siteId: number | null;
  uuids?: string[];
  ref?: { uuid: string } | { slug: string };
  /** Only this app (an API key sees its own app only). */
  appId?: number;
  includeDeleted?: boolean;
  search?: string;
}

const COLUMNS = `a.id, a.uuid, a.slug, a.name, a.description, a.site_id AS "siteId", s.uuid AS "siteUuid",
  a.is_active AS "isActive", a.is_deleted AS "isDeleted", a.created_at AS "createdAt", a.updated_at AS "updatedAt"`;

function where(f: AppFilter): SqlFragment {
  const params: unknown[] = [...f.access.params];
  const clauses = [f.access.sql, 's.is_active', 'NOT s.is_deleted'];
  if (!f.includeDeleted) clauses.push('a.is_active', 'NOT a.is_deleted');
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(params.length));
  };
  if (f.siteId !== null) add((n) => `a.site_id = $${n}`, f.siteId);
  if (f.appId !== undefined) add((n) => `a.id = $${n}`, f.appId);
  if (f.uuids) add((n) => `a.uuid = ANY($${n}::uuid[])`, f.uuids);
  if (f.ref && 'uuid' in f.ref) add((n) => `a.uuid = $${n}::uuid`, f.ref.uuid);
  if (f.ref && 'slug' in f.ref) add((n) => `a.slug = $${n}`, f.ref.slug);
  if (f.search)
    add((n) => `(a.name ILIKE $${n} OR a.slug ILIKE $${n} OR a.description ILIKE $${n})`, `%${f.search.replace(/[\\%_]/g, '\\$&')}%`);
  return { sql: clauses.join(' AND '), params };
}

export const appRepository = {
  /** Apps of live sites that pass the filter (live apps unless includeDeleted). */
  async find(pool: pg.Pool, f: AppFilter): Promise<AppRow[]> {
    const w = where(f);
    const { rows } = await pool.query<AppRow>(`SELECT ${COLUMNS} FROM apps a JOIN sites s ON s.id = a.site_id WHERE ${w.sql}`, w.params);
    return rows;
  },

  async list(pool: pg.Pool, f: AppFilter, order: OrderBy[], page: PageRequest): Promise<{ rows: AppRow[]; count: number }> {
    const w = where(f);
    const orderSql = [...order.map((o) => `a.${o.column} ${o.desc ? 'DESC' : 'ASC'}`), 'a.id ASC'].join(', ');
    const from = 'FROM apps a JOIN sites s ON s.id = a.site_id';
    const { rows, count } = await queryPage<AppRow>(pool, { select: COLUMNS, from, where: w, orderBy: orderSql, page });
    return { rows, count };
  },

  /** Slugs of the site equal to `base` or `base-…` (slugs are unique per site). */
  async takenSlugs(pool: pg.Pool, siteId: number, base: string): Promise<string[]> {
    const { rows } = await pool.query<{ slug: string }>('SELECT slug FROM apps WHERE site_id = $1 AND (slug = $2 OR slug LIKE $3)', [
      siteId,
      base,
      `${base.replace(/[\\%_]/g, '\\$&')}-%`,
    ]);
    return rows.map((r) => r.slug);
  },
};
