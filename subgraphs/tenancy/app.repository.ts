// Read-only queries on apps (raw SQL: the site access predicate joins in).
import type pg from 'pg';
import type { SqlFragment } from './access.service.js';

export interface AppRow {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  description: string;
  siteId: number;
  siteUuid: string;
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
}

export const appRepository = {
  /** Live apps of live sites that pass the filter. */
  async find(pool: pg.Pool, f: AppFilter): Promise<AppRow[]> {
    const params: unknown[] = [...f.access.params];
    const clauses = [f.access.sql, 'a.is_active', 'NOT a.is_deleted', 's.is_active', 'NOT s.is_deleted'];
    const add = (sql: (n: number) => string, value: unknown) => {
      params.push(value);
      clauses.push(sql(params.length));
    };
    if (f.siteId !== null) add((n) => `a.site_id = $${n}`, f.siteId);
    if (f.uuids) add((n) => `a.uuid = ANY($${n}::uuid[])`, f.uuids);
    if (f.ref && 'uuid' in f.ref) add((n) => `a.uuid = $${n}::uuid`, f.ref.uuid);
    if (f.ref && 'slug' in f.ref) add((n) => `a.slug = $${n}`, f.ref.slug);
    const { rows } = await pool.query<AppRow>(
      `SELECT a.id, a.uuid, a.slug, a.name, a.description, a.site_id AS "siteId", s.uuid AS "siteUuid",
              a.created_at AS "createdAt", a.updated_at AS "updatedAt"
         FROM apps a JOIN sites s ON s.id = a.site_id
        WHERE ${clauses.join(' AND ')}`,
      params,
    );
    return rows;
  },
};
