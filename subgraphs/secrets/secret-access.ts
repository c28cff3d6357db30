// Who may read and write secrets of the request's site (DECISIONS §9), the tier named by an
// `app` parameter, and the secrets error envelope's errors.
import type { RequestContext, SiteRef } from '../core/context.js';
import { prepared } from '../core/db.js';
import { errors } from '../core/errors.js';
import { can } from '../tenancy/tenancy.api.js';
import { secretsError } from './secrets-errors.js';

export const secretNotFound = (key: string) =>
  secretsError(404, 'not_found', { error: 'Secret not found.', detail: `No secret with key "${key}".` });

export function siteOf(ctx: RequestContext): SiteRef {
  if (!ctx.site) throw errors.tenantRequired();
  return ctx.site;
}

// A platform error: it answers in the platform envelope {detail, code, status_code} on every route.
const unauthenticated = () => errors.notAuthenticated('Private and sensitive secrets need authentication.');
export const forbidden = (what: string) =>
  secretsError(403, 'permission_denied', {
    error: 'You do not have permission to perform this action.',
    detail: `Missing permission ${what} on this site.`,
  });

export async function requireRead(ctx: RequestContext): Promise<SiteRef> {
  const site = siteOf(ctx);
  if (ctx.principal.kind === 'anonymous') throw unauthenticated();
  if (!(await can(ctx, 'secrets:read', 'site', site.id))) throw forbidden('secrets:read');
  return site;
}

/** 401 for anonymous, 403 when authenticated without permission (the private-secret read). */
export const denyRead = (ctx: RequestContext) => (ctx.principal.kind === 'anonymous' ? unauthenticated() : forbidden('secrets:read'));

/**
 * Writes need secrets:write (owners, manage_site, staff hold it). An API key writes only its
 * own app's tier: it acts for that app, never for the whole site.
 */
export async function requireWrite(ctx: RequestContext, appId: number | null): Promise<SiteRef> {
  const site = siteOf(ctx);
  const p = ctx.principal;
  if (p.kind === 'anonymous') throw unauthenticated();
  if (p.kind === 'api_key') {
    if (appId === null || appId !== p.appId) throw forbidden('secrets:write');
    return site;
  }
  if (!(await can(ctx, 'secrets:write', 'site', site.id))) throw forbidden('secrets:write');
  return site;
}

export interface Tier {
  appId: number | null;
  appSlug: string | null;
}

export const SITE_TIER: Tier = { appId: null, appSlug: null };

/**
 * The tier an `app` parameter names: a live app of this site by slug; none → site tier.
 * Works for anonymous callers too (public reads). An API key sees only its own app.
 */
export async function tierOf(ctx: RequestContext, appRef: unknown): Promise<Tier> {
  if (appRef === undefined || appRef === null || appRef === '') return SITE_TIER;
  if (typeof appRef !== 'string')
    throw secretsError(400, 'invalid', { error: 'Invalid input.', detail: { app: ['Must be an app slug or null.'] } });
  const site = siteOf(ctx);
  const { rows } = await ctx.platform.pool.query<{ id: number; slug: string }>(
    prepared('SELECT id, slug FROM apps WHERE site_id = $1 AND slug = $2 AND NOT is_deleted', [site.id, appRef]),
  );
  const app = rows[0];
  if (!app || (ctx.principal.kind === 'api_key' && ctx.principal.appId !== app.id)) {
    throw secretsError(404, 'not_found', { error: 'App not found.', detail: `No app "${appRef}" on this site.` });
  }
  return { appId: app.id, appSlug: app.slug };
}

/** Who made a change, for history: the username, or the API key for app callers. */
export function actor(ctx: RequestContext): { userId: number | null; username: string | null } {
  const p = ctx.principal;
  if (p.kind === 'user') return { userId: p.userId, username: p.username };
  if (p.kind === 'api_key') return { userId: null, username: `api_key:${p.keyId}` };
  return { userId: null, username: null };
}
