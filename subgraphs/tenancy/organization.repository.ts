// Organizations in the platform database (raw SQL where access predicates join in).
import type pg from 'pg';
import type { OrderBy, PageRequest } from '../core/listing.js';
import type { SqlFragment } from './access.service.js';

export interface OrganizationRow {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  is_active: boolean;
  is_deleted: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface OrganizationFilter {
  access: SqlFragment;
  search?: string;
  isActive?: boolean;
  includeDeleted: boolean;
  ref?: { uuid: string } | { slug: string };
}

const COLUMNS = 'o.id, o.uuid, o.slug, o.name, o.is_active, o.is_deleted, o.created_at, o.updated_at';

function where(f: OrganizationFilter): SqlFragment {
  const params: unknown[] = [...f.access.params];
  const clauses = [f.access.sql];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(params.length));
  };
  if (!f.includeDeleted) clauses.push('NOT o.is_deleted');
  if (f.isActive !== undefined) add((n) => `o.is_active = $${n}`, f.isActive);
  if (f.search) add((n) => `(o.name ILIKE $${n} OR o.slug ILIKE $${n})`, `%${f.search.replace(/[\\%_]/g, '\\$&')}%`);
  if (f.ref && 'uuid' in f.ref) add((n) => `o.uuid = $${n}::uuid`, f.ref.uuid);
  if (f.ref && 'slug' in f.ref) add((n) => `o.slug = $${n}`, f.ref.slug);
  return { sql: clauses.join(' AND '), params };
}

export const organizationRepository = {
  async list(pool: pg.Pool, f: OrganizationFilter, order: OrderBy[], page: PageRequest) {
    const w = where(f);
    const orderSql = [...order.map((o) => `o.${o.column} ${o.desc ? 'DESC' : 'ASC'}`), 'o.id ASC'].join(', ');
    const n = w.params.length;
    const [rows, count] = await Promise.all([
      pool.query<OrganizationRow>(
        `SELECT ${COLUMNS} FROM organizations o WHERE ${w.sql} ORDER BY ${orderSql} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...w.params, page.pageSize, page.offset],
      ),
      pool.query<{ count: number }>(`SELECT count(*)::int AS count FROM organizations o WHERE ${w.sql}`, w.params),
    ]);
    return { rows: rows.rows, count: count.rows[0].count };
  },

  async findOne(pool: pg.Pool, f: OrganizationFilter): Promise<OrganizationRow | null> {
    const w = where(f);
    const { rows } = await pool.query<OrganizationRow>(`SELECT ${COLUMNS} FROM organizations o WHERE ${w.sql} LIMIT 1`, w.params);
    return rows[0] ?? null;
  },
};
