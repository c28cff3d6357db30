// Sites and their domains as the caller may see them (read paths used by GraphQL).
// On a site's own host only that site exists for the request: another tenant's site answers
// as if it did not exist. On a platform host, any site the caller can view.
import type { RequestContext } from '../core/context.js';
import { isUniqueViolation } from '../core/db.js';
import { errors, type FieldErrors } from '../core/errors.js';
import { orderBy, pageRequest, searchTerm, type ListInput, type ListResult } from '../core/listing.js';
import { isUuid, nextFreeSlug, slugify, slugOrUuid, withUniqueSlug } from '../core/slug.js';
import { accessPredicate, can } from './access.service.js';
import { audit } from './audit-log.js';
import { getOrganization } from './organization.service.js';
import { findOrganizations } from './reference.service.js';
import { createSiteSchema, dropSiteSchema, schemaNameFor } from './site-schema.js';
import { siteRepository, type DomainRow, type SiteFilter, type SiteRow } from './site.repository.js';

export type { DomainRow, SiteRow };

/**
 * A site as the services answer it (camelCase, Dates): the REST routes render the seed's view
 * (site-views.ts), GraphQL maps it to `Site`.
 */
export type Site = SiteRow;

/** A domain of a site as the services answer it (site-views.ts and GraphQL `Domain` render it). */
export type Domain = DomainRow;

/** The configuration of the site served at a tenant host (`GET /api/sites/config/`, `siteConfig`). */
export interface SiteConfig {
  site: { uuid: string; slug: string; name: string; environment: string; schemaName: string };
  organization: { uuid: string; slug: string; name: string };
  siteSettings: Record<string, unknown>;
  /** The host of the primary domain, null when the site has none. */
  primaryDomain: string | null;
  /** The site's active domains, primary first. */
  domains: Domain[];
}

function filter(ctx: RequestContext, extra: Partial<SiteFilter> = {}): SiteFilter {
  return { access: accessPredicate(ctx, 'view_site', 'site', 's'), tenantSiteId: ctx.site?.id ?? null, ...extra };
}

/** One site by slug or UUID; 404 when it does not exist, is elsewhere, or is not visible. */
export async function getSite(ctx: RequestContext, ref: string): Promise<Site> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const [row] = await siteRepository.find(ctx.platform.pool, filter(ctx, { ref: slugOrUuid(ref) }));
  if (!row) throw errors.notFound('Site not found.');
  return row;
}

/** Visible sites among `uuids`, in one query; absent ones are simply missing. */
export async function findSites(ctx: RequestContext, uuids: readonly string[]): Promise<Site[]> {
  const valid = uuids.filter(isUuid).map((u) => u.toLowerCase());
  if (ctx.principal.kind === 'anonymous' || valid.length === 0) return [];
  return siteRepository.find(ctx.platform.pool, filter(ctx, { uuids: valid }));
}

/**
 * A visible site by UUID, or 404; with `permission` (a module permission such as
 * `secrets:read`), 403 unless the caller holds it on that site.
 */
export async function requireSite(ctx: RequestContext, uuid: string, permission?: string): Promise<Site> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const [row] = await findSites(ctx, [uuid]);
  if (!row) throw errors.notFound('Site not found.');
  if (permission && !(await can(ctx, permission, 'site', row.id))) throw errors.permissionDenied();
  return row;
}

export async function listSiteDomains(ctx: RequestContext, siteUuid: string, input: ListInput): Promise<ListResult<Domain>> {
  const site = await requireSite(ctx, siteUuid);
  const page = pageRequest(input);
  const { rows, count } = await siteRepository.listDomains(ctx.platform.pool, site.id, page);
  return { page, count, items: rows };
}

/** Visible domains among `uuids` (a domain is visible with its site). */
export async function findDomains(ctx: RequestContext, uuids: readonly string[]): Promise<Domain[]> {
  const valid = uuids.filter(isUuid).map((u) => u.toLowerCase());
  if (ctx.principal.kind === 'anonymous' || valid.length === 0) return [];
  return siteRepository.findDomains(ctx.platform.pool, filter(ctx), valid);
}

/** `GET /api/sites/config/`: the configuration of the site served at the request's host. */
export async function getSiteConfig(ctx: RequestContext): Promise<SiteConfig> {
  if (!ctx.site) throw errors.tenantRequired();
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (!(await can(ctx, 'view_site', 'site', ctx.site.id))) throw errors.permissionDenied();
  const [row] = await siteRepository.find(
    ctx.platform.pool,
    filter(ctx, { tenantSiteId: ctx.site.id, access: { sql: 'TRUE', params: [] } }),
  );
  if (!row) throw errors.notFound('Site not found.');
  const [org, domains] = await Promise.all([
    siteRepository.organizationOf(ctx.platform.pool, ctx.site.organizationId),
    siteRepository.listDomains(ctx.platform.pool, ctx.site.id, { page: 1, pageSize: 1000, offset: 0 }),
  ]);
  return {
    site: { uuid: row.uuid, slug: row.slug, name: row.name, environment: row.environment, schemaName: ctx.site.schemaName },
    organization: org,
    siteSettings: row.siteSettings,
    primaryDomain: domains.rows.find((d) => d.isPrimary)?.domain ?? null,
    domains: domains.rows,
  };
}

// ---------------------------------------------------------------------------------------------
// Writes (REST and GraphQL call these). Each is one transaction with its audit entry inside.

export const ENVIRONMENTS = ['production', 'staging', 'development', 'testing'] as const;

/** A JSON body as an object, or 400. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw errors.invalid('The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

/** Reads optional trimmed strings, recording field errors instead of throwing one by one. */
export function textField(
  b: Record<string, unknown>,
  field: string,
  errs: FieldErrors,
  opts: { required?: boolean; max: number },
): string | undefined {
  const v = b[field];
  if (v === undefined || v === null) {
    if (opts.required) errs[field] = ['This field is required.'];
    return undefined;
  }
  if (typeof v !== 'string') errs[field] = ['Must be a string.'];
  else if (opts.required && !v.trim()) errs[field] = ['This field may not be blank.'];
  else if (v.length > opts.max) errs[field] = [`At most ${opts.max} characters.`];
  else return opts.required ? v.trim() : v;
  return undefined;
}

interface SiteInput {
  name?: string;
  description?: string;
  environment?: string;
  siteSettings?: Record<string, unknown>;
}

function parseSiteInput(body: unknown, requireName: boolean): SiteInput {
  const b = bodyObject(body);
  const errs: FieldErrors = {};
  const out: SiteInput = {
    name: textField(b, 'name', errs, { required: requireName, max: 200 }),
    description: textField(b, 'description', errs, { max: 2000 }),
  };
  if (!errs.name && !requireName && typeof b.name === 'string' && !b.name.trim()) errs.name = ['This field may not be blank.'];
  if (b.environment !== undefined) {
    if (typeof b.environment === 'string' && (ENVIRONMENTS as readonly string[]).includes(b.environment)) out.environment = b.environment;
    else errs.environment = [`Must be one of: ${ENVIRONMENTS.join(', ')}.`];
  }
  if (b.site_settings !== undefined) {
    const v = b.site_settings;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.siteSettings = v as Record<string, unknown>;
    else errs.site_settings = ['Must be a JSON object.'];
  }
  if (Object.keys(errs).length) throw errors.invalid('Invalid site.', errs);
  return out;
}

/** Writes on sites belong to users: an API key never administers its site. */
function requireUserCaller(ctx: RequestContext): void {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (ctx.principal.kind !== 'user') throw errors.permissionDenied();
}

/** `permission` on the site (owners hold all), or manage_organization on its organization. */
export async function mayAdminister(
  ctx: RequestContext,
  permission: string,
  site: { id: number; organizationId: number },
): Promise<boolean> {
  if (ctx.principal.kind !== 'user') return false;
  return (await can(ctx, permission, 'site', site.id)) || can(ctx, 'manage_organization', 'organization', site.organizationId);
}

/** Re-reads a site after a write, whatever the host (the caller's access was checked). */
async function reload(ctx: RequestContext, id: number): Promise<Site> {
  const [row] = await siteRepository.find(ctx.platform.pool, {
    access: { sql: 'TRUE', params: [] },
    tenantSiteId: null,
    ids: [id],
    includeDeleted: true,
  });
  return row;
}

/** Forget every host of the site in the tenant cache, so a change answers at once. */
export async function forgetHosts(ctx: RequestContext, siteId: number): Promise<void> {
  for (const host of await siteRepository.hosts(ctx.platform.pool, siteId)) ctx.platform.invalidation.publish({ kind: 'tenant', host });
}

const ORDERING = { name: 'name', slug: 'slug', environment: 'environment', created_at: 'created_at', updated_at: 'updated_at' };

export interface SiteListInput extends ListInput {
  /** Also the soft-deleted sites the caller could delete (staff, owners, manage_site). */
  includeDeleted?: boolean | null;
  isActive?: boolean | null;
}

/** Sites the caller can view, or (with `orgRef`) one organization's. */
export async function listSites(ctx: RequestContext, input: SiteListInput, orgRef?: string): Promise<ListResult<Site>> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const page = pageRequest(input);
  const order = orderBy(input.ordering, ORDERING, 'name');
  const includeDeleted = input.includeDeleted ?? false;
  const org = orgRef === undefined ? undefined : await getOrganization(ctx, orgRef);
  // Deleted sites are listed to those who could delete them: staff, owners, manage_site.
  const { rows, count } = await siteRepository.list(
    ctx.platform.pool,
    filter(ctx, {
      access: accessPredicate(ctx, includeDeleted ? 'manage_site' : 'view_site', 'site', 's'),
      includeDeleted,
      organizationId: org?.id,
      search: searchTerm(input.search),
      isActive: input.isActive ?? undefined,
    }),
    order,
    page,
  );
  return { page, count, items: rows };
}

/**
 * `listSites(ctx, input, org)` for several organizations (UUIDs) at once, in a constant number
 * of statements: each answer is that organization's page, or its error (404 when the caller
 * cannot view it), as listSites would give. For DataLoaders (GraphQL `Organization.sites`).
 */
export async function listSitesOfOrganizations(
  ctx: RequestContext,
  input: SiteListInput,
  orgUuids: readonly string[],
): Promise<(ListResult<Site> | Error)[]> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const page = pageRequest(input);
  const order = orderBy(input.ordering, ORDERING, 'name');
  const orgs = new Map((await findOrganizations(ctx, orgUuids)).map((o) => [o.uuid, o]));
  const ids = [...new Set([...orgs.values()].map((o) => o.id))];
  const pages = ids.length
    ? await siteRepository.listPerOrganization(ctx.platform.pool, filter(ctx, { search: searchTerm(input.search) }), ids, order, page)
    : new Map<number, { rows: SiteRow[]; count: number }>();
  return orgUuids.map((uuid) => {
    const org = orgs.get(uuid.toLowerCase());
    if (!org) return errors.notFound('Organization not found.');
    const { rows, count } = pages.get(org.id)!;
    return { page, count, items: rows };
  });
}

/** A site by slug or UUID including deleted ones, for those who may delete it; else 404. */
async function getSiteForDeletion(ctx: RequestContext, ref: string): Promise<Site> {
  const [row] = await siteRepository.find(
    ctx.platform.pool,
    filter(ctx, { ref: slugOrUuid(ref), includeDeleted: true, access: accessPredicate(ctx, 'manage_site', 'site', 's') }),
  );
  if (row) return row;
  return getSite(ctx, ref); // 404, or a live site visible without the right to delete it
}

export async function createSite(ctx: RequestContext, orgRef: string, body: unknown): Promise<Site> {
  requireUserCaller(ctx);
  const org = await getOrganization(ctx, orgRef);
  if (!(await can(ctx, 'manage_site', 'organization', org.id)) && !(await can(ctx, 'manage_organization', 'organization', org.id))) {
    throw errors.permissionDenied();
  }
  const input = parseSiteInput(body, true);
  const { pool, prisma, config } = ctx.platform;
  const created = await withUniqueSlug({
    base: slugify(input.name!, 'site'),
    // `config` is a path of its own (/api/sites/config/), never a site slug.
    taken: async (base) => [...(await siteRepository.takenSlugs(pool, 'sites', base)), 'config'],
    // The schema name follows the slug, so any unique violation is solved by the next slug.
    isSlugConflict: isUniqueViolation,
    insert: (slug) =>
      prisma.$transaction(async (tx) => {
        const schemaName = schemaNameFor(slug);
        const host = `${slug}.${config.siteBaseDomain}`;
        const site = await tx.site.create({
          data: {
            slug,
            name: input.name!,
            description: input.description ?? '',
            environment: input.environment ?? 'development',
            siteSettings: (input.siteSettings ?? {}) as object,
            organizationId: org.id,
            schemaName,
            createdById: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
          },
        });
        // The row first: a racing create of the same slug waits on its unique index and then
        // fails as a slug conflict (retried with the next slug). Once the slug is ours, a
        // schema or host already in place is a real conflict: 409, and nothing is kept.
        await createSiteSchema(tx, schemaName);
        if (await tx.domain.findUnique({ where: { domain: host } }))
          throw errors.conflict(`The host "${host}" already belongs to a site.`, { domain: ['Already in use.'] });
        const domainSlug = nextFreeSlug(slugify(host, 'domain'), await siteRepository.takenSlugs(pool, 'domains', slugify(host, 'domain')));
        await tx.domain.create({ data: { slug: domainSlug, domain: host, siteId: site.id, isPrimary: true } });
        // Modules add the site's own rows (DECISIONS §9: the system secret types), in this transaction.
        await ctx.platform.hooks.runBlocking(ctx, 'siteCreated', tx, { id: site.id, schemaName });
        const changes = { slug, name: site.name, environment: site.environment, schema_name: schemaName, domain: host };
        await audit(tx, ctx, {
          action: 'create',
          objectType: 'site',
          objectId: site.uuid,
          organizationId: org.id,
          siteId: site.id,
          changes,
        });
        return site;
      }),
  });
  await forgetHosts(ctx, created.id); // a cached "no site here" for the new host
  return reload(ctx, created.id);
}

export async function updateSite(ctx: RequestContext, ref: string, body: unknown, partial: boolean): Promise<Site> {
  requireUserCaller(ctx);
  const site = await getSite(ctx, ref);
  if (!(await mayAdminister(ctx, 'change_site', site))) throw errors.permissionDenied();
  const input = parseSiteInput(body, !partial);
  const data = {
    ...(input.name !== undefined && { name: input.name.trim() }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.environment !== undefined && { environment: input.environment }),
    ...(input.siteSettings !== undefined && { siteSettings: input.siteSettings as object }),
  };
  await ctx.platform.prisma.$transaction(async (tx) => {
    await tx.site.update({ where: { id: site.id }, data });
    await audit(tx, ctx, {
      action: 'update',
      objectType: 'site',
      objectId: site.uuid,
      organizationId: site.organizationId,
      siteId: site.id,
      changes: data,
    });
  });
  await forgetHosts(ctx, site.id); // the tenant cache holds the site's name and environment
  return reload(ctx, site.id);
}

/** Soft delete (cascading to domains), or with `purge=true` (superusers) drop schema and row. */
/** Soft-deletes (or purges) a site; answers the site as it was before. */
export async function deleteSite(ctx: RequestContext, ref: string, opts: { purge?: boolean } = {}): Promise<Site> {
  requireUserCaller(ctx);
  const purge = opts.purge ?? false;
  const site = purge ? await getSiteForDeletion(ctx, ref) : await getSite(ctx, ref);
  const scope = { organizationId: site.organizationId, siteId: site.id };
  const hosts = await siteRepository.hosts(ctx.platform.pool, site.id);
  if (purge) {
    if (ctx.principal.kind !== 'user' || !ctx.principal.isSuperuser) throw errors.permissionDenied('Only a superuser may purge a site.');
    await ctx.platform.prisma.$transaction(async (tx) => {
      await audit(tx, ctx, {
        action: 'purge',
        objectType: 'site',
        objectId: site.uuid,
        ...scope,
        changes: { slug: site.slug, schema_name: site.schemaName },
      });
      await tx.site.delete({ where: { id: site.id } }); // domains, apps and keys follow (ON DELETE CASCADE)
      await dropSiteSchema(tx, site.schemaName);
    });
  } else {
    if (!(await mayAdminister(ctx, 'delete_site', site))) throw errors.permissionDenied();
    await ctx.platform.prisma.$transaction(async (tx) => {
      await tx.site.update({ where: { id: site.id }, data: { isActive: false, isDeleted: true, deletedAt: new Date() } });
      await tx.domain.updateMany({ where: { siteId: site.id }, data: { isActive: false } });
      await audit(tx, ctx, { action: 'delete', objectType: 'site', objectId: site.uuid, ...scope });
    });
  }
  for (const host of hosts) ctx.platform.invalidation.publish({ kind: 'tenant', host });
  ctx.platform.invalidation.publish({ kind: 'apiKeys' }); // keys of the site's apps stop at once
  return site;
}

export async function restoreSite(ctx: RequestContext, ref: string): Promise<Site> {
  requireUserCaller(ctx);
  const site = await getSiteForDeletion(ctx, ref);
  if (!(await mayAdminister(ctx, 'delete_site', site))) throw errors.permissionDenied();
  if (site.isDeleted || !site.isActive) {
    await ctx.platform.prisma.$transaction(async (tx) => {
      await tx.site.update({ where: { id: site.id }, data: { isActive: true, isDeleted: false, deletedAt: null } });
      await tx.domain.updateMany({ where: { siteId: site.id }, data: { isActive: true } });
      await audit(tx, ctx, {
        action: 'restore',
        objectType: 'site',
        objectId: site.uuid,
        organizationId: site.organizationId,
        siteId: site.id,
      });
    });
    await forgetHosts(ctx, site.id);
    ctx.platform.invalidation.publish({ kind: 'apiKeys' });
  }
  return reload(ctx, site.id);
}
