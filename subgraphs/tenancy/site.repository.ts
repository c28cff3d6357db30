// Read-only queries on sites and their domains (raw SQL: access predicates join in).
import type pg from 'pg';
import type { SiteRef } from '../core/context.js';
import { toSiteRef } from '../core/tenant-cache.js';
import type { PageRequest } from '../core/listing.js';
import type { SqlFragment } from './access.service.js';

export interface SiteRow {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  description: string;
  environment: string;
  siteSettings: Record<string, unknown>;
  organizationUuid: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface DomainRow {
  id: number;
  uuid: string;
  slug: string;
  domain: string;
  isPrimary: boolean;
  isActive: boolean;
  siteUuid: string;
  createdAt: Date;
}

export interface SiteFilter {
  /** Predicate on alias `s` (sites); its placeholders come first. */
  access: SqlFragment;
  /** On a tenant host, only that site is ever found. */
  tenantSiteId: number | null;
  uuids?: string[];
  ref?: { uuid: string } | { slug: string };
}

const SITE_COLUMNS = `s.id, s.uuid, s.slug, s.name, s.description, s.environment, s.site_settings AS "siteSettings",
  o.uuid AS "organizationUuid", s.created_at AS "createdAt", s.updated_at AS "updatedAt"`;

/** Live sites of live organizations, restricted by access and tenant. */
function siteWhere(f: SiteFilter): SqlFragment {
  const params: unknown[] = [...f.access.params];
  const clauses = [f.access.sql, 's.is_active', 'NOT s.is_deleted', 'o.is_active', 'NOT o.is_deleted'];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(params.length));
  };
  if (f.tenantSiteId !== null) add((n) => `s.id = $${n}`, f.tenantSiteId);
  if (f.uuids) add((n) => `s.uuid = ANY($${n}::uuid[])`, f.uuids);
  if (f.ref && 'uuid' in f.ref) add((n) => `s.uuid = $${n}::uuid`, f.ref.uuid);
  if (f.ref && 'slug' in f.ref) add((n) => `s.slug = $${n}`, f.ref.slug);
  return { sql: clauses.join(' AND '), params };
}

const DOMAIN_COLUMNS = `d.id, d.uuid, d.slug, d.domain, d.is_primary AS "isPrimary", d.is_active AS "isActive",
  s.uuid AS "siteUuid", d.created_at AS "createdAt"`;

export const siteRepository = {
  async find(pool: pg.Pool, f: SiteFilter): Promise<SiteRow[]> {
    const w = siteWhere(f);
    const { rows } = await pool.query<SiteRow>(
      `SELECT ${SITE_COLUMNS} FROM sites s JOIN organizations o ON o.id = s.organization_id WHERE ${w.sql}`,
      w.params,
    );
    return rows;
  },

  /** Domains by UUID whose site passes the same filter as find(). */
  async findDomains(pool: pg.Pool, f: SiteFilter, uuids: string[]): Promise<DomainRow[]> {
    const w = siteWhere(f);
    const { rows } = await pool.query<DomainRow>(
      `SELECT ${DOMAIN_COLUMNS} FROM domains d JOIN sites s ON s.id = d.site_id JOIN organizations o ON o.id = s.organization_id
        WHERE ${w.sql} AND d.is_active AND d.uuid = ANY($${w.params.length + 1}::uuid[])`,
      [...w.params, uuids],
    );
    return rows;
  },

  async listDomains(pool: pg.Pool, siteId: number, page: PageRequest): Promise<{ rows: DomainRow[]; count: number }> {
    const [rows, count] = await Promise.all([
      pool.query<DomainRow>(
        `SELECT ${DOMAIN_COLUMNS} FROM domains d JOIN sites s ON s.id = d.site_id
          WHERE d.site_id = $1 AND d.is_active ORDER BY d.is_primary DESC, d.domain ASC, d.id ASC LIMIT $2 OFFSET $3`,
        [siteId, page.pageSize, page.offset],
      ),
      pool.query<{ count: number }>('SELECT count(*)::int AS count FROM domains d WHERE d.site_id = $1 AND d.is_active', [siteId]),
    ]);
    return { rows: rows.rows, count: count.rows[0].count };
  },

  async organizationOf(pool: pg.Pool, id: number): Promise<{ uuid: string; slug: string; name: string }> {
    const { rows } = await pool.query('SELECT uuid, slug, name FROM organizations WHERE id = $1', [id]);
    return rows[0];
  },

  /** The tenant reference of a live site by id (subgraph servers rebuild the context with it). */
  async refById(pool: pg.Pool, id: number): Promise<SiteRef | null> {
    const { rows } = await pool.query(
      `SELECT s.id, s.uuid, s.slug, s.name, s.schema_name, s.organization_id, s.environment
         FROM sites s JOIN organizations o ON o.id = s.organization_id
        WHERE s.id = $1 AND s.is_active AND NOT s.is_deleted AND o.is_active`,
      [id],
    );
    return rows[0] ? toSiteRef(rows[0]) : null;
  },
};
