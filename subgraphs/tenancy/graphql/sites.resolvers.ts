// Tenancy subgraph: queries and mutations of the sites area (SDL in schema/tenancy/sites.graphql).
// Adapters only: list arguments are the services' typed inputs; mutation inputs become the
// REST body the same service functions parse.
import type { ResolverMap } from '../../core/graphql/resolvers.js';
import DataLoader from 'dataloader';
import { perRequest, toConnection, type PageArgs, type SubgraphContext } from '../../core/graphql/context.js';
import type { ListResult } from '../../core/listing.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../api-key-admin.service.js';
import { createApp, deleteApp, listApps, updateApp } from '../app.service.js';
import { createDomain, deleteDomain, updateDomain } from '../domain.service.js';
import {
  createSite,
  getSiteConfig,
  deleteSite,
  listSites,
  listSitesOfOrganizations,
  restoreSite,
  updateSite,
  type Site,
} from '../site.service.js';
import { toGraphApp, toGraphDomain, toGraphSite } from '../tenancy.resolvers.js';

type Input = Record<string, unknown>;
type Parent = { id: string };

/** Per request and per arguments: a DataLoader of `Organization.sites` pages by organization UUID. */
function orgSitesLoader(c: SubgraphContext, args: PageArgs) {
  const byArgs = perRequest(c, 'tenancy:organizationSites', () => new Map<string, DataLoader<string, ListResult<Site>>>());
  const key = JSON.stringify([args.page ?? null, args.pageSize ?? null, args.search ?? null]);
  let loader = byArgs.get(key);
  if (!loader) {
    loader = new DataLoader((uuids: readonly string[]) => listSitesOfOrganizations(c.ctx, args, uuids));
    byArgs.set(key, loader);
  }
  return loader;
}

const keyOut = (k: { id: number; uuid: string }) => ({ ...k, id: k.uuid, keyId: k.id });

/** camelCase GraphQL input fields as the snake_case body of the REST routes (absent stays absent). */
function body(input: Input, names: Record<string, string>): Input {
  const out: Input = {};
  for (const [gql, rest] of Object.entries(names)) if (input[gql] !== undefined) out[rest] = input[gql];
  return out;
}

const SITE_FIELDS = { name: 'name', description: 'description', environment: 'environment', siteSettings: 'site_settings' };
const DOMAIN_FIELDS = { domain: 'domain', isPrimary: 'is_primary' };
const APP_FIELDS = { name: 'name', description: 'description' };

export const siteAdminResolvers: ResolverMap = {
  Query: {
    sites: (_p, args: PageArgs, { ctx }) => listSites(ctx, args).then((r) => toConnection(r, toGraphSite)),
    apps: (_p, args: PageArgs, { ctx }) => listApps(ctx, args).then((r) => toConnection(r, toGraphApp)),
    apiKeys: (_p, args: PageArgs & { app: string }, { ctx }) => listApiKeys(ctx, args.app, args).then((r) => toConnection(r, keyOut)),
    siteConfig: async (_p, _a, { ctx }) => {
      const c = await getSiteConfig(ctx);
      return {
        site: c.site,
        organization: c.organization,
        siteSettings: c.siteSettings,
        primaryDomain: c.primaryDomain,
        domains: c.domains.map((d) => ({ uuid: d.uuid, slug: d.slug, domain: d.domain, isPrimary: d.isPrimary, isActive: d.isActive })),
      };
    },
  },
  // Entity lists (DECISIONS §11): the same list services as the Query fields and REST routes,
  // scoped to the parent; the service checks the parent is visible and the caller's right.
  Organization: {
    // Batched: the organizations of one list share a page size, so one loader per arguments.
    sites: (org: Parent, args: PageArgs, c: SubgraphContext) =>
      orgSitesLoader(c, args)
        .load(org.id)
        .then((r) => toConnection(r, toGraphSite)),
  },
  Site: {
    apps: (site: Parent, args: PageArgs, { ctx }) => listApps(ctx, args, site.id).then((r) => toConnection(r, toGraphApp)),
  },
  App: {
    apiKeys: (app: Parent, args: PageArgs, { ctx }) => listApiKeys(ctx, app.id, args).then((r) => toConnection(r, keyOut)),
  },
  Mutation: {
    createSite: (_p, a: { organization: string; input: Input }, { ctx }) =>
      createSite(ctx, a.organization, body(a.input, SITE_FIELDS)).then(toGraphSite),
    updateSite: (_p, a: { slug: string; input: Input }, { ctx }) =>
      updateSite(ctx, a.slug, body(a.input, SITE_FIELDS), true).then(toGraphSite),
    deleteSite: (_p, a: { slug: string; purge?: boolean }, { ctx }) =>
      deleteSite(ctx, a.slug, { purge: a.purge ?? false }).then(toGraphSite),
    restoreSite: (_p, a: { slug: string }, { ctx }) => restoreSite(ctx, a.slug).then(toGraphSite),
    createDomain: (_p, a: { site: string; input: Input }, { ctx }) =>
      createDomain(ctx, a.site, body(a.input, DOMAIN_FIELDS)).then(toGraphDomain),
    updateDomain: (_p, a: { site: string; domain: string; input: Input }, { ctx }) =>
      updateDomain(ctx, a.site, a.domain, body(a.input, DOMAIN_FIELDS)).then(toGraphDomain),
    deleteDomain: (_p, a: { site: string; domain: string }, { ctx }) => deleteDomain(ctx, a.site, a.domain).then(toGraphDomain),
    createApp: (_p, a: { input: Input }, { ctx }) => createApp(ctx, body(a.input, APP_FIELDS)).then(toGraphApp),
    updateApp: (_p, a: { slug: string; input: Input }, { ctx }) => updateApp(ctx, a.slug, body(a.input, APP_FIELDS), true).then(toGraphApp),
    deleteApp: (_p, a: { slug: string }, { ctx }) => deleteApp(ctx, a.slug).then(toGraphApp),
    createApiKey: (_p, a: { app: string; name: string }, { ctx }) =>
      createApiKey(ctx, a.app, { name: a.name }).then(({ key, ...k }) => ({ apiKey: keyOut(k), key })),
    revokeApiKey: (_p, a: { app: string; id: string }, { ctx }) => revokeApiKey(ctx, a.app, a.id).then(keyOut),
  },
};
