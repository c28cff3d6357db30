// REST routes of sites, domains, apps and API keys (seed 1; DECISIONS §2–§5). Adapters only:
// each calls one service function and shapes its answer.
import type { RestInput, RouteSpec } from '../core/rest.js';
import type { RequestContext } from '../core/context.js';
import { listInputFromQuery, parseBool, toPage, type ListResult, type Query } from '../core/listing.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-key-admin.service.js';
import { appTableCounts, createApp, deleteApp, listApps, resolveApp, restoreApp, updateApp, type App } from './app.service.js';
import { createDomain, deleteDomain, getDomain, listDomains, updateDomain } from './domain.service.js';
import { createSite, deleteSite, getSite, getSiteConfig, listSites, restoreSite, updateSite } from './site.service.js';
import { toAppRest, toDomainRest, toSiteConfigRest, toSiteRest } from './site-views.js';
import { toApiKeyRest } from './users-views.js';

type Handler = RouteSpec['handler'];

/** Apps as REST shows them, with their table counts (one query for the lot). */
async function appsRest(ctx: RequestContext, apps: App[]) {
  const counts = await appTableCounts(ctx, apps);
  return apps.map((a) => toAppRest(a, counts.get(a.id) ?? 0));
}

const appRest = async (ctx: RequestContext, app: App) => (await appsRest(ctx, [app]))[0];

const page = <S, T>(ctx: RequestContext, input: RestInput, r: ListResult<S>, view: (s: S) => T) =>
  toPage(ctx.baseUrl + input.url, r.page, r.count, r.items.map(view));

/** `?page&page_size&search&ordering&include_deleted&is_active` as the typed site list input. */
const siteListInput = (query: Query) => listInputFromQuery(query, { include_deleted: 'boolean', is_active: 'boolean' });

function route(
  method: RouteSpec['method'],
  path: string,
  scope: RouteSpec['scope'],
  permission: string | null,
  summary: string,
  handler: Handler,
  module = 'tenancy',
): RouteSpec {
  return { method, path, scope, auth: 'required', module, permission, summary, handler };
}

export const sitesRoutes: RouteSpec[] = [
  // Sites
  route('GET', '/organizations/:org/sites/', 'console', 'view_organization', 'Sites of an organization', async (ctx, i) =>
    page(ctx, i, await listSites(ctx, siteListInput(i.query), i.params.org), toSiteRest),
  ),
  route(
    'POST',
    '/organizations/:org/sites/',
    'console',
    'manage_site',
    'Create a site (with its schema and primary domain)',
    async (ctx, i) => toSiteRest(await createSite(ctx, i.params.org, i.body)),
  ),
  route('GET', '/sites/', 'console', null, 'Sites the caller can view', async (ctx, i) =>
    page(ctx, i, await listSites(ctx, siteListInput(i.query)), toSiteRest),
  ),
  route('GET', '/sites/config/', 'site', 'view_site', 'Configuration of the site served at this host', async (ctx) =>
    toSiteConfigRest(await getSiteConfig(ctx)),
  ),
  route('GET', '/sites/:site/', 'console', 'view_site', 'One site by slug or UUID', async (ctx, i) =>
    toSiteRest(await getSite(ctx, i.params.site)),
  ),
  route('PUT', '/sites/:site/', 'console', 'change_site', 'Update a site', async (ctx, i) =>
    toSiteRest(await updateSite(ctx, i.params.site, i.body, false)),
  ),
  route('PATCH', '/sites/:site/', 'console', 'change_site', 'Partly update a site', async (ctx, i) =>
    toSiteRest(await updateSite(ctx, i.params.site, i.body, true)),
  ),
  route('DELETE', '/sites/:site/', 'console', 'delete_site', 'Soft-delete a site (purge=true: superusers drop it)', (ctx, i) =>
    deleteSite(ctx, i.params.site, { purge: parseBool(i.query, 'purge') }),
  ),
  {
    ...route('POST', '/sites/:site/restore/', 'console', 'delete_site', 'Restore a deleted site', async (ctx, i) =>
      toSiteRest(await restoreSite(ctx, i.params.site)),
    ),
    status: 200,
  },

  // Domains
  route('GET', '/sites/:site/domains/', 'console', 'view_site', 'Domains of a site', async (ctx, i) =>
    page(ctx, i, await listDomains(ctx, i.params.site, listInputFromQuery(i.query)), toDomainRest),
  ),
  route('POST', '/sites/:site/domains/', 'console', 'change_site', 'Add a domain to a site', async (ctx, i) =>
    toDomainRest(await createDomain(ctx, i.params.site, i.body)),
  ),
  route('GET', '/sites/:site/domains/:domain/', 'console', 'view_site', 'One domain', async (ctx, i) =>
    toDomainRest(await getDomain(ctx, i.params.site, i.params.domain)),
  ),
  route('PATCH', '/sites/:site/domains/:domain/', 'console', 'change_site', 'Change a domain (host, primary)', async (ctx, i) =>
    toDomainRest(await updateDomain(ctx, i.params.site, i.params.domain, i.body)),
  ),
  route('DELETE', '/sites/:site/domains/:domain/', 'console', 'change_site', 'Remove a domain', (ctx, i) =>
    deleteDomain(ctx, i.params.site, i.params.domain),
  ),

  // Apps (tenant host)
  route('GET', '/apps/', 'site', 'view_site', 'Apps of this site', async (ctx, i) => {
    const r = await listApps(ctx, listInputFromQuery(i.query));
    return toPage(ctx.baseUrl + i.url, r.page, r.count, await appsRest(ctx, r.items));
  }),
  route('POST', '/apps/', 'site', 'manage_site', 'Create an app', async (ctx, i) => appRest(ctx, await createApp(ctx, i.body))),
  route('GET', '/apps/:app/', 'site', 'view_site', 'One app', async (ctx, i) => appRest(ctx, await resolveApp(ctx, i.params.app))),
  route('PUT', '/apps/:app/', 'site', 'manage_site', 'Update an app', async (ctx, i) =>
    appRest(ctx, await updateApp(ctx, i.params.app, i.body, false)),
  ),
  route('PATCH', '/apps/:app/', 'site', 'manage_site', 'Partly update an app', async (ctx, i) =>
    appRest(ctx, await updateApp(ctx, i.params.app, i.body, true)),
  ),
  route('DELETE', '/apps/:app/', 'site', 'manage_site', 'Soft-delete an app', (ctx, i) => deleteApp(ctx, i.params.app)),
  {
    ...route('POST', '/apps/:app/restore/', 'site', 'manage_site', 'Restore a deleted app', async (ctx, i) =>
      appRest(ctx, await restoreApp(ctx, i.params.app)),
    ),
    status: 200,
  },

  // API keys of an app
  route(
    'GET',
    '/apps/:app/api-keys/',
    'site',
    'manage_site',
    'API keys of an app (never the keys themselves)',
    async (ctx, i) => page(ctx, i, await listApiKeys(ctx, i.params.app, listInputFromQuery(i.query)), toApiKeyRest),
    'auth',
  ),
  route(
    'POST',
    '/apps/:app/api-keys/',
    'site',
    'manage_site',
    'Create an API key (shown once)',
    async (ctx, i) => {
      const k = await createApiKey(ctx, i.params.app, i.body);
      return { ...toApiKeyRest(k), key: k.key };
    },
    'auth',
  ),
  route(
    'DELETE',
    '/apps/:app/api-keys/:id/',
    'site',
    'manage_site',
    'Revoke an API key',
    (ctx, i) => revokeApiKey(ctx, i.params.app, i.params.id),
    'auth',
  ),
];
