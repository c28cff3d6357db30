// Apps of the site served at the request's host, as the caller may see them (read paths
// used by GraphQL and by the modules whose records belong to an app).
import type { RequestContext, SiteRef } from '../core/context.js';
import { isUniqueViolation } from '../core/db.js';
import { errors, type FieldErrors } from '../core/errors.js';
import { orderBy, pageRequest, searchTerm, type ListInput, type ListResult } from '../core/listing.js';
import { isUuid, slugify, slugOrUuid, withUniqueSlug } from '../core/slug.js';
import { accessPredicate, can } from './access.service.js';
import { appRepository, type AppRow } from './app.repository.js';
import { audit } from './audit-log.js';
import { bodyObject, mayAdminister, requireSite, textField } from './site.service.js';

export type { AppRow };

/**
 * An app as the services answer it (camelCase, Dates): the REST routes render the seed's view
 * (site-views.ts, with `appTableCounts`), GraphQL maps it to `App`.
 */
export type App = AppRow;

/** Apps live in a site: the caller needs a tenant host, credentials and access to that site. */
async function requireSiteAccess(ctx: RequestContext): Promise<SiteRef> {
  if (!ctx.site) throw errors.tenantRequired();
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (!(await can(ctx, 'view_site', 'site', ctx.site.id))) throw errors.permissionDenied();
  return ctx.site;
}

/**
 * The app of an `/api/apps/{app}/…` path, for every module: this host's site, by slug or UUID;
 * 404 for an unknown, deleted or foreign app, and for any app but its own to an API key.
 */
export async function resolveApp(ctx: RequestContext, ref: string, opts: { includeDeleted?: boolean } = {}): Promise<App> {
  const site = await requireSiteAccess(ctx);
  const [row] = await appRepository.find(ctx.platform.pool, {
    access: { sql: 'TRUE', params: [] }, // checked above for this very site
    siteId: site.id,
    ref: slugOrUuid(ref),
    appId: ctx.principal.kind === 'api_key' ? ctx.principal.appId : undefined,
    includeDeleted: opts.includeDeleted,
  });
  if (!row) throw errors.notFound('App not found.');
  return row;
}

/**
 * The app of an `/api/apps/{app}/…` path on this host's site, by slug or UUID, WITHOUT a site
 * access check: for modules that serve anonymous reads (public storage buckets) and check access
 * on their own objects. 404 for an unknown, deleted or foreign app, and for any app but its own
 * to an API key.
 */
export async function findSiteApp(ctx: RequestContext, ref: string): Promise<App> {
  if (!ctx.site) throw errors.tenantRequired();
  const [row] = await appRepository.find(ctx.platform.pool, {
    access: { sql: 'TRUE', params: [] }, // the caller checks access to what it serves
    siteId: ctx.site.id,
    ref: slugOrUuid(ref),
    appId: ctx.principal.kind === 'api_key' ? ctx.principal.appId : undefined,
  });
  if (!row) throw errors.notFound('App not found.');
  return row;
}

/** One app of this host's site by slug or UUID (GraphQL `app(slug)`). */
export const getApp = (ctx: RequestContext, ref: string): Promise<App> => resolveApp(ctx, ref);

/** Visible apps among `uuids`, in one query; on a tenant host only that site's apps. */
export async function findApps(ctx: RequestContext, uuids: readonly string[]): Promise<App[]> {
  const valid = uuids.filter(isUuid).map((u) => u.toLowerCase());
  if (ctx.principal.kind === 'anonymous' || valid.length === 0) return [];
  return appRepository.find(ctx.platform.pool, {
    access: accessPredicate(ctx, 'view_site', 'site', 's'),
    siteId: ctx.site?.id ?? null,
    appId: ctx.principal.kind === 'api_key' ? ctx.principal.appId : undefined,
    uuids: valid,
  });
}

/**
 * A visible app by UUID, or 404; with `permission` (a module permission such as
 * `data:read`), 403 unless the caller holds it on the app's site.
 */
export async function requireApp(ctx: RequestContext, uuid: string, permission?: string): Promise<App> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const [row] = await findApps(ctx, [uuid]);
  if (!row) throw errors.notFound('App not found.');
  if (permission && !(await can(ctx, permission, 'site', row.siteId))) throw errors.permissionDenied();
  return row;
}

// ---------------------------------------------------------------------------------------------
// Apps CRUD (DECISIONS §5): site owners and admins write, view_site reads.

/**
 * The number of data tables of each app (the REST view's `table_count`), from the data module
 * in one query; no query for no apps.
 */
export async function appTableCounts(ctx: RequestContext, apps: readonly App[]): Promise<Map<number, number>> {
  if (apps.length === 0) return new Map();
  return ctx.platform.hooks.api.appTableCounts(
    ctx,
    apps.map((a) => a.id),
  );
}

/** Owners and admins of this host's site (manage_site); an API key never administers apps. */
export async function requireSiteAdmin(ctx: RequestContext): Promise<SiteRef> {
  const site = await requireSiteAccess(ctx);
  if (!(await mayAdminister(ctx, 'manage_site', { id: site.id, organizationId: site.organizationId }))) throw errors.permissionDenied();
  return site;
}

function parseAppInput(body: unknown, requireName: boolean): { name?: string; description?: string } {
  const b = bodyObject(body);
  const errs: FieldErrors = {};
  const out = {
    name: textField(b, 'name', errs, { required: requireName, max: 200 }),
    description: textField(b, 'description', errs, { max: 2000 }),
  };
  if (!errs.name && !requireName && typeof b.name === 'string' && !b.name.trim()) errs.name = ['This field may not be blank.'];
  if (Object.keys(errs).length) throw errors.invalid('Invalid app.', errs);
  return { ...out, name: out.name?.trim() };
}

const ORDERING = { name: 'name', slug: 'slug', created_at: 'created_at', updated_at: 'updated_at' };

async function appListSite(ctx: RequestContext, siteUuid: string | undefined): Promise<{ id: number }> {
  if (siteUuid === undefined || ctx.site) {
    const site = await requireSiteAccess(ctx);
    if (siteUuid !== undefined && site.uuid !== siteUuid.toLowerCase()) throw errors.notFound('Site not found.');
    return site;
  }
  return requireSite(ctx, siteUuid, 'view_site');
}

/**
 * Apps of this host's site (`GET /api/apps/`). With `siteUuid` (GraphQL `Site.apps`), that
 * site's: on its own host the same list; on a platform host, any site the caller can view
 * (view_site, as on its host), 404 for one they cannot.
 */
export async function listApps(ctx: RequestContext, input: ListInput, siteUuid?: string): Promise<ListResult<App>> {
  const site = await appListSite(ctx, siteUuid);
  const page = pageRequest(input);
  const { rows, count } = await appRepository.list(
    ctx.platform.pool,
    {
      access: { sql: 'TRUE', params: [] },
      siteId: site.id,
      appId: ctx.principal.kind === 'api_key' ? ctx.principal.appId : undefined,
      search: searchTerm(input.search),
    },
    orderBy(input.ordering, ORDERING, 'name'),
    page,
  );
  return { page, count, items: rows };
}

export async function createApp(ctx: RequestContext, body: unknown): Promise<App> {
  const site = await requireSiteAdmin(ctx);
  const input = parseAppInput(body, true);
  const app = await withUniqueSlug({
    base: slugify(input.name!, 'app'),
    taken: (base) => appRepository.takenSlugs(ctx.platform.pool, site.id, base),
    isSlugConflict: isUniqueViolation,
    insert: (slug) =>
      ctx.platform.prisma.$transaction(async (tx) => {
        const a = await tx.app.create({
          data: {
            siteId: site.id,
            slug,
            name: input.name!,
            description: input.description ?? '',
            createdById: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
          },
        });
        await audit(tx, ctx, {
          action: 'create',
          objectType: 'app',
          objectId: a.uuid,
          organizationId: site.organizationId,
          siteId: site.id,
          changes: { slug, name: a.name },
        });
        return a;
      }),
  });
  return resolveApp(ctx, app.uuid);
}

export async function updateApp(ctx: RequestContext, ref: string, body: unknown, partial: boolean): Promise<App> {
  const app = await resolveApp(ctx, ref);
  const site = await requireSiteAdmin(ctx);
  const input = parseAppInput(body, !partial);
  const data = {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.description !== undefined && { description: input.description }),
  };
  await ctx.platform.prisma.$transaction(async (tx) => {
    await tx.app.update({ where: { id: app.id }, data });
    await audit(tx, ctx, {
      action: 'update',
      objectType: 'app',
      objectId: app.uuid,
      organizationId: site.organizationId,
      siteId: site.id,
      changes: data,
    });
  });
  return resolveApp(ctx, app.uuid);
}

/** Soft delete; the app's API keys stop at once. */
/** Soft-deletes an app; answers it as it was before. */
export async function deleteApp(ctx: RequestContext, ref: string): Promise<App> {
  const app = await resolveApp(ctx, ref);
  const site = await requireSiteAdmin(ctx);
  await ctx.platform.prisma.$transaction(async (tx) => {
    await tx.app.update({ where: { id: app.id }, data: { isActive: false, isDeleted: true, deletedAt: new Date() } });
    await audit(tx, ctx, { action: 'delete', objectType: 'app', objectId: app.uuid, organizationId: site.organizationId, siteId: site.id });
  });
  ctx.platform.invalidation.publish({ kind: 'apiKeys' });
  return app;
}

export async function restoreApp(ctx: RequestContext, ref: string): Promise<App> {
  const app = await resolveApp(ctx, ref, { includeDeleted: true });
  const site = await requireSiteAdmin(ctx);
  if (app.isDeleted || !app.isActive) {
    await ctx.platform.prisma.$transaction(async (tx) => {
      await tx.app.update({ where: { id: app.id }, data: { isActive: true, isDeleted: false, deletedAt: null } });
      await audit(tx, ctx, {
        action: 'restore',
        objectType: 'app',
        objectId: app.uuid,
        organizationId: site.organizationId,
        siteId: site.id,
      });
    });
    ctx.platform.invalidation.publish({ kind: 'apiKeys' });
  }
  return resolveApp(ctx, app.uuid);
}
