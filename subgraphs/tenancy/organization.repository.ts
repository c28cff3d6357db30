// Organizations in the platform database (raw SQL where access predicates join in). Writes take
// the caller's transaction, so the change, its cascade and its audit entry commit together.
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import { isUniqueViolation, prepared, type Tx } from '../core/db.js';
import type { OrderBy, PageRequest } from '../core/listing.js';
import type { SqlFragment } from './access.service.js';

/** An organization as the services answer it (the domain object; REST and GraphQL render their views). */
export interface OrganizationRow {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  isActive: boolean;
  isDeleted: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface OrganizationFilter {
  /** Who may see a live organization (a predicate on alias `o`; its placeholders come first). */
  access: SqlFragment;
  /**
   * Who may also see a soft-deleted one (placeholders numbered after `access`'s); without it,
   * soft-deleted organizations are never found.
   */
  deletedAccess?: SqlFragment;
  search?: string;
  isActive?: boolean;
  ref?: { uuid: string } | { slug: string };
}

const COLUMNS = `o.id, o.uuid, o.slug, o.name, o.is_active AS "isActive", o.is_deleted AS "isDeleted",
  o.created_at AS "createdAt", o.updated_at AS "updatedAt"`;

function where(f: OrganizationFilter): SqlFragment {
  const params: unknown[] = [...f.access.params, ...(f.deletedAccess?.params ?? [])];
  const visible = f.deletedAccess
    ? `((NOT o.is_deleted AND ${f.access.sql}) OR (o.is_deleted AND ${f.deletedAccess.sql}))`
    : `NOT o.is_deleted AND ${f.access.sql}`;
  const clauses = [visible];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(params.length));
  };
  if (f.isActive !== undefined) add((n) => `o.is_active = $${n}`, f.isActive);
  if (f.search) add((n) => `(o.name ILIKE $${n} OR o.slug ILIKE $${n})`, `%${f.search.replace(/[\\%_]/g, '\\$&')}%`);
  if (f.ref && 'uuid' in f.ref) add((n) => `o.uuid = $${n}::uuid`, f.ref.uuid);
  if (f.ref && 'slug' in f.ref) add((n) => `o.slug = $${n}`, f.ref.slug);
  return { sql: clauses.join(' AND '), params };
}

/** What a cascade changed: the ids of the sites and the number of domains. */
export interface CascadeResult {
  sites: number[];
  domains: number;
}

export const organizationRepository = {
  async list(pool: pg.Pool, f: OrganizationFilter, order: OrderBy[], page: PageRequest) {
    const w = where(f);
    const orderSql = [...order.map((o) => `o.${o.column} ${o.desc ? 'DESC' : 'ASC'}`), 'o.id ASC'].join(', ');
    return queryPage<OrganizationRow>(pool, { select: COLUMNS, from: 'FROM organizations o', where: w, orderBy: orderSql, page });
  },

  async findOne(pool: pg.Pool, f: OrganizationFilter): Promise<OrganizationRow | null> {
    const w = where(f);
    const { rows } = await pool.query<OrganizationRow>(prepared(`SELECT ${COLUMNS} FROM organizations o WHERE ${w.sql} LIMIT 1`, w.params));
    return rows[0] ?? null;
  },

  /** Slugs equal to `base` or starting with `base-` (candidates for the next free suffix). */
  async slugsLike(tx: Tx, base: string): Promise<string[]> {
    const rows = await tx.$queryRawUnsafe<{ slug: string }[]>(
      `SELECT slug FROM organizations WHERE slug = $1 OR slug LIKE $2`,
      base,
      `${base.replace(/[\\%_]/g, '\\$&')}-%`,
    );
    return rows.map((r) => r.slug);
  },

  /**
   * Inserts an organization; null when the slug is taken. ON CONFLICT keeps a taken slug from
   * aborting the surrounding transaction, so the caller can try the next one inside it.
   */
  async insert(tx: Tx, data: { slug: string; name: string; createdById: number | null }): Promise<OrganizationRow | null> {
    const rows = await tx.$queryRawUnsafe<OrganizationRow[]>(
      `INSERT INTO organizations AS o (slug, name, created_by_id) VALUES ($1, $2, $3)
       ON CONFLICT (slug) DO NOTHING RETURNING ${COLUMNS}`,
      data.slug,
      data.name,
      data.createdById,
    );
    return rows[0] ?? null;
  },

  /** Renames; null when the new slug is taken (by a live or a deleted organization). */
  async update(tx: Tx, id: number, data: { name: string; slug: string }): Promise<OrganizationRow | null> {
    try {
      const rows = await tx.$queryRawUnsafe<OrganizationRow[]>(
        `UPDATE organizations o SET name = $2, slug = $3, updated_at = now() WHERE o.id = $1 RETURNING ${COLUMNS}`,
        id,
        data.name,
        data.slug,
      );
      return rows[0];
    } catch (e) {
      // The transaction is aborted either way; the caller answers 409 and it rolls back.
      if (isUniqueViolation(e)) return null;
      throw e;
    }
  },

  /** Locks the row for the rest of the transaction (delete and restore race each other otherwise). */
  async lock(tx: Tx, id: number): Promise<OrganizationRow> {
    const rows = await tx.$queryRawUnsafe<OrganizationRow[]>(`SELECT ${COLUMNS} FROM organizations o WHERE o.id = $1 FOR UPDATE`, id);
    return rows[0];
  },

  /**
   * Soft-deletes the organization, its live sites and their active domains, all stamped with
   * the transaction's now(): restore finds exactly what this cascade touched by that stamp.
   */
  async softDelete(tx: Tx, id: number): Promise<CascadeResult> {
    await tx.$executeRawUnsafe(
      `UPDATE organizations SET is_active = false, is_deleted = true, deleted_at = now(), updated_at = now() WHERE id = $1`,
      id,
    );
    const domains = await tx.$executeRawUnsafe(
      `UPDATE domains d SET is_active = false, updated_at = now() FROM sites s
        WHERE d.site_id = s.id AND s.organization_id = $1 AND NOT s.is_deleted AND d.is_active`,
      id,
    );
    const sites = await tx.$queryRawUnsafe<{ id: number }[]>(
      `UPDATE sites SET is_active = false, is_deleted = true, deleted_at = now(), updated_at = now()
        WHERE organization_id = $1 AND NOT is_deleted RETURNING id`,
      id,
    );
    return { sites: sites.map((s) => s.id), domains };
  },

  /**
   * Undoes softDelete: the sites whose deleted_at equals the organization's (deleted by its
   * cascade, not on their own earlier) and their domains switched off by that same cascade.
   */
  async restore(tx: Tx, id: number): Promise<CascadeResult> {
    const domains = await tx.$executeRawUnsafe(
      `UPDATE domains d SET is_active = true, updated_at = now() FROM sites s JOIN organizations o ON o.id = s.organization_id
        WHERE d.site_id = s.id AND o.id = $1 AND s.is_deleted AND s.deleted_at = o.deleted_at
          AND NOT d.is_active AND d.updated_at = o.deleted_at`,
      id,
    );
    const sites = await tx.$queryRawUnsafe<{ id: number }[]>(
      `UPDATE sites s SET is_active = true, is_deleted = false, deleted_at = NULL, updated_at = now() FROM organizations o
        WHERE o.id = s.organization_id AND o.id = $1 AND s.is_deleted AND s.deleted_at = o.deleted_at RETURNING s.id`,
      id,
    );
    await tx.$executeRawUnsafe(
      `UPDATE organizations SET is_active = true, is_deleted = false, deleted_at = NULL, updated_at = now() WHERE id = $1`,
      id,
    );
    return { sites: sites.map((s) => s.id), domains };
  },
};
