// Sites and their domains as the caller may see them (read paths used by GraphQL).
// On a site's own host only that site exists for the request: another tenant's site answers
// as if it did not exist. On a platform host, any site the caller can view.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { parsePage, type Query } from '../core/listing.js';
import { isUuid, slugOrUuid } from '../core/slug.js';
import { accessPredicate, can } from './access.service.js';
import { siteRepository, type DomainRow, type SiteFilter, type SiteRow } from './site.repository.js';

export type { DomainRow, SiteRow };

function filter(ctx: RequestContext, extra: Partial<SiteFilter> = {}): SiteFilter {
  return { access: accessPredicate(ctx, 'view_site', 'site', 's'), tenantSiteId: ctx.site?.id ?? null, ...extra };
}

/** One site by slug or UUID; 404 when it does not exist, is elsewhere, or is not visible. */
export async function getSite(ctx: RequestContext, ref: string): Promise<SiteRow> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const [row] = await siteRepository.find(ctx.platform.pool, filter(ctx, { ref: slugOrUuid(ref) }));
  if (!row) throw errors.notFound('Site not found.');
  return row;
}

/** Visible sites among `uuids`, in one query; absent ones are simply missing. */
export async function findSites(ctx: RequestContext, uuids: readonly string[]): Promise<SiteRow[]> {
  const valid = uuids.filter(isUuid).map((u) => u.toLowerCase());
  if (ctx.principal.kind === 'anonymous' || valid.length === 0) return [];
  return siteRepository.find(ctx.platform.pool, filter(ctx, { uuids: valid }));
}

/**
 * A visible site by UUID, or 404; with `permission` (a module permission such as
 * `secrets:read`), 403 unless the caller holds it on that site.
 */
export async function requireSite(ctx: RequestContext, uuid: string, permission?: string): Promise<SiteRow> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const [row] = await findSites(ctx, [uuid]);
  if (!row) throw errors.notFound('Site not found.');
  if (permission && !(await can(ctx, permission, 'site', row.id))) throw errors.permissionDenied();
  return row;
}

export async function listSiteDomains(ctx: RequestContext, siteUuid: string, query: Query) {
  const site = await requireSite(ctx, siteUuid);
  const page = parsePage(query);
  const { rows, count } = await siteRepository.listDomains(ctx.platform.pool, site.id, page);
  return { page, count, items: rows };
}

/** Visible domains among `uuids` (a domain is visible with its site). */
export async function findDomains(ctx: RequestContext, uuids: readonly string[]): Promise<DomainRow[]> {
  const valid = uuids.filter(isUuid).map((u) => u.toLowerCase());
  if (ctx.principal.kind === 'anonymous' || valid.length === 0) return [];
  return siteRepository.findDomains(ctx.platform.pool, filter(ctx), valid);
}

/** `GET /api/sites/config/`: the configuration of the site served at the request's host. */
export async function getSiteConfig(ctx: RequestContext) {
  if (!ctx.site) throw errors.tenantRequired();
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (!(await can(ctx, 'view_site', 'site', ctx.site.id))) throw errors.permissionDenied();
  const [row] = await siteRepository.find(ctx.platform.pool, filter(ctx, { tenantSiteId: ctx.site.id, access: { sql: 'TRUE', params: [] } }));
  if (!row) throw errors.notFound('Site not found.');
  const [org, domains] = await Promise.all([
    siteRepository.organizationOf(ctx.platform.pool, ctx.site.organizationId),
    siteRepository.listDomains(ctx.platform.pool, ctx.site.id, { page: 1, pageSize: 1000, offset: 0 }),
  ]);
  return {
    site: { uuid: row.uuid, slug: row.slug, name: row.name, environment: row.environment, schema_name: ctx.site.schemaName },
    organization: org,
    site_settings: row.siteSettings,
    primary_domain: domains.rows.find((d) => d.isPrimary)?.domain ?? null,
    domains: domains.rows.map((d) => ({ uuid: d.uuid, slug: d.slug, domain: d.domain, is_primary: d.isPrimary, is_active: d.isActive })),
  };
}
