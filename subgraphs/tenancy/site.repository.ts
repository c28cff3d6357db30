// Read-only queries on sites and their domains (raw SQL: access predicates join in).
import type pg from 'pg';
import { prepared } from '../core/db.js';
import { queryPage } from '../core/paged-query.js';
import type { SiteRef } from '../core/context.js';
import { toSiteRef } from '../core/tenant-cache.js';
import type { OrderBy, PageRequest } from '../core/listing.js';
import type { SqlFragment } from './access.service.js';

export interface SiteRow {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  description: string;
  environment: string;
  siteSettings: Record<string, unknown>;
  schemaName: string;
  isActive: boolean;
  isDeleted: boolean;
  organizationId: number;
  organizationUuid: string;
  organizationSlug: string;
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
  ids?: number[];
  ref?: { uuid: string } | { slug: string };
  /** Soft-deleted sites too (staff, owners, restore). */
  includeDeleted?: boolean;
  organizationId?: number;
  search?: string;
  isActive?: boolean;
}

const SITE_COLUMNS = `s.id, s.uuid, s.slug, s.name, s.description, s.environment, s.site_settings AS "siteSettings",
  s.schema_name AS "schemaName", s.is_active AS "isActive", s.is_deleted AS "isDeleted",
  o.id AS "organizationId", o.uuid AS "organizationUuid", o.slug AS "organizationSlug",
  s.created_at AS "createdAt", s.updated_at AS "updatedAt"`;

/** Live sites of live organizations, restricted by access and tenant. */
function siteWhere(f: SiteFilter): SqlFragment {
  const params: unknown[] = [...f.access.params];
  const clauses = [f.access.sql, 'o.is_active', 'NOT o.is_deleted'];
  if (!f.includeDeleted) clauses.push('s.is_active', 'NOT s.is_deleted');
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(params.length));
  };
  if (f.tenantSiteId !== null) add((n) => `s.id = $${n}`, f.tenantSiteId);
  if (f.uuids) add((n) => `s.uuid = ANY($${n}::uuid[])`, f.uuids);
  if (f.ids) add((n) => `s.id = ANY($${n}::int[])`, f.ids);
  if (f.organizationId !== undefined) add((n) => `s.organization_id = $${n}`, f.organizationId);
  if (f.isActive !== undefined) add((n) => `s.is_active = $${n}`, f.isActive);
  if (f.search)
    add((n) => `(s.name ILIKE $${n} OR s.slug ILIKE $${n} OR s.description ILIKE $${n})`, `%${f.search.replace(/[\\%_]/g, '\\$&')}%`);
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
      prepared(`SELECT ${SITE_COLUMNS} FROM sites s JOIN organizations o ON o.id = s.organization_id WHERE ${w.sql}`, w.params),
    );
    return rows;
  },

  async list(pool: pg.Pool, f: SiteFilter, order: OrderBy[], page: PageRequest): Promise<{ rows: SiteRow[]; count: number }> {
    const w = siteWhere(f);
    const orderSql = [...order.map((o) => `s.${o.column} ${o.desc ? 'DESC' : 'ASC'}`), 's.id ASC'].join(', ');
    const from = 'FROM sites s JOIN organizations o ON o.id = s.organization_id';
    const { rows, count } = await queryPage<SiteRow>(pool, { select: SITE_COLUMNS, from, where: w, orderBy: orderSql, page });
    return { rows, count };
  },

  /**
   * The same page of sites for each of several organizations, in two statements (the rows with a
   * window per organization, the counts grouped): GraphQL `Organization.sites` under a list.
   */
  async listPerOrganization(
    pool: pg.Pool,
    f: SiteFilter,
    organizationIds: number[],
    order: OrderBy[],
    page: PageRequest,
  ): Promise<Map<number, { rows: SiteRow[]; count: number }>> {
    const w = siteWhere(f);
    const n = w.params.length;
    const orderSql = [...order.map((o) => `s.${o.column} ${o.desc ? 'DESC' : 'ASC'}`), 's.id ASC'].join(', ');
    const from = `FROM sites s JOIN organizations o ON o.id = s.organization_id
      WHERE ${w.sql} AND s.organization_id = ANY($${n + 1}::int[])`;
    const [{ rows }, counts] = await Promise.all([
      pool.query<SiteRow & { __n: string }>(
        prepared(
          `SELECT * FROM (SELECT ${SITE_COLUMNS}, row_number() OVER (PARTITION BY s.organization_id ORDER BY ${orderSql}) AS "__n" ${from}) x
          WHERE "__n" > $${n + 2} AND "__n" <= $${n + 3} ORDER BY "organizationId", "__n"`,
          [...w.params, organizationIds, page.offset, page.offset + page.pageSize],
        ),
      ),
      pool.query<{ id: number; count: number }>(
        prepared(`SELECT s.organization_id AS id, count(*)::int AS count ${from} GROUP BY s.organization_id`, [
          ...w.params,
          organizationIds,
        ]),
      ),
    ]);
    const out = new Map(organizationIds.map((id) => [id, { rows: [] as SiteRow[], count: 0 }]));
    for (const c of counts.rows) out.get(c.id)!.count = c.count;
    for (const { __n: _n, ...row } of rows) out.get(row.organizationId)!.rows.push(row);
    return out;
  },

  /** Slugs equal to `base` or `base-…` (for withUniqueSlug). */
  async takenSlugs(pool: pg.Pool, table: 'sites' | 'domains', base: string): Promise<string[]> {
    const { rows } = await pool.query<{ slug: string }>(`SELECT slug FROM ${table} WHERE slug = $1 OR slug LIKE $2`, [
      base,
      `${base.replace(/[\\%_]/g, '\\$&')}-%`,
    ]);
    return rows.map((r) => r.slug);
  },

  /** Every host of a site, active or not (to forget them in the tenant cache). */
  async hosts(pool: pg.Pool, siteId: number): Promise<string[]> {
    const { rows } = await pool.query<{ domain: string }>('SELECT domain FROM domains WHERE site_id = $1', [siteId]);
    return rows.map((r) => r.domain);
  },

  /** One domain of a site by slug or UUID, active or not. */
  async findDomain(pool: pg.Pool, siteId: number, ref: { uuid: string } | { slug: string }): Promise<DomainRow | null> {
    const [col, value] = 'uuid' in ref ? ['d.uuid = $2::uuid', ref.uuid] : ['d.slug = $2', ref.slug];
    const { rows } = await pool.query<DomainRow>(
      `SELECT ${DOMAIN_COLUMNS} FROM domains d JOIN sites s ON s.id = d.site_id WHERE d.site_id = $1 AND ${col}`,
      [siteId, value],
    );
    return rows[0] ?? null;
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
    return queryPage<DomainRow>(pool, {
      select: DOMAIN_COLUMNS,
      from: 'FROM domains d JOIN sites s ON s.id = d.site_id',
      where: { sql: 'd.site_id = $1 AND d.is_active', params: [siteId] },
      orderBy: 'd.is_primary DESC, d.domain ASC, d.id ASC',
      page,
    });
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
