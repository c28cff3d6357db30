// Apps of the site served at the request's host, as the caller may see them (read paths
// used by GraphQL and by the modules whose records belong to an app).
import type { RequestContext, SiteRef } from '../core/context.js';
import { errors } from '../core/errors.js';
import { isUuid, slugOrUuid } from '../core/slug.js';
import { accessPredicate, can } from './access.service.js';
import { appRepository, type AppRow } from './app.repository.js';

export type { AppRow };

/** Apps live in a site: the caller needs a tenant host, credentials and access to that site. */
async function requireSiteAccess(ctx: RequestContext): Promise<SiteRef> {
  if (!ctx.site) throw errors.tenantRequired();
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (!(await can(ctx, 'view_site', 'site', ctx.site.id))) throw errors.permissionDenied();
  return ctx.site;
}

/** One app of this host's site by slug or UUID; 404 for an unknown, deleted or foreign app. */
export async function getApp(ctx: RequestContext, ref: string): Promise<AppRow> {
  const site = await requireSiteAccess(ctx);
  const [row] = await appRepository.find(ctx.platform.pool, {
    access: { sql: 'TRUE', params: [] }, // checked above for this very site
    siteId: site.id,
    ref: slugOrUuid(ref),
  });
  if (!row) throw errors.notFound('App not found.');
  return row;
}

/** Visible apps among `uuids`, in one query; on a tenant host only that site's apps. */
export async function findApps(ctx: RequestContext, uuids: readonly string[]): Promise<AppRow[]> {
  const valid = uuids.filter(isUuid).map((u) => u.toLowerCase());
  if (ctx.principal.kind === 'anonymous' || valid.length === 0) return [];
  return appRepository.find(ctx.platform.pool, {
    access: accessPredicate(ctx, 'view_site', 'site', 's'),
    siteId: ctx.site?.id ?? null,
    uuids: valid,
  });
}

/**
 * A visible app by UUID, or 404; with `permission` (a module permission such as
 * `data:read`), 403 unless the caller holds it on the app's site.
 */
export async function requireApp(ctx: RequestContext, uuid: string, permission?: string): Promise<AppRow> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const [row] = await findApps(ctx, [uuid]);
  if (!row) throw errors.notFound('App not found.');
  if (permission && !(await can(ctx, permission, 'site', row.siteId))) throw errors.permissionDenied();
  return row;
}
