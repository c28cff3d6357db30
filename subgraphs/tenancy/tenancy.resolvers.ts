// Tenancy subgraph resolvers: adapters from GraphQL to the tenancy services. Entities that
// other subgraphs reference are loaded through per-request DataLoaders, one query per type.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import DataLoader from 'dataloader';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { RequestContext } from '../core/context.js';
import { AppError } from '../core/errors.js';
import { getDomain } from './domain.service.js';
import { perRequest, toConnection, type PageArgs, type SubgraphContext } from '../core/graphql/context.js';
import { findApps, getApp, type App } from './app.service.js';
import type { Domain } from './domain.service.js';
import { getOrganization, listOrganizations, type Organization } from './organization.service.js';
import { findGroups, findOrganizations, findUsers, type GroupRow, type UserRow } from './reference.service.js';
import { findDomains, findSites, getSite, listSiteDomains, type Site } from './site.service.js';
import type { UserAccount } from './user-account.js';
import { getMe } from './user.service.js';

/** A loader of rows by id that answers null for ids the caller may not see. */
function byId<R>(ctx: RequestContext, find: (ctx: RequestContext, ids: readonly string[]) => Promise<R[]>, idOf: (r: R) => string) {
  return new DataLoader<string, R | null>(async (ids) => {
    const found = new Map((await find(ctx, ids)).map((r) => [idOf(r), r]));
    return ids.map((id) => found.get(id.toLowerCase()) ?? null);
  });
}

const createLoaders = (ctx: RequestContext) => ({
  organizations: byId(ctx, findOrganizations, (r) => r.uuid),
  sites: byId(ctx, findSites, (r) => r.uuid),
  domains: byId(ctx, findDomains, (r) => r.uuid),
  users: byId(ctx, findUsers, (r) => r.uuid),
  groups: byId(ctx, findGroups, (r) => String(r.id)),
  apps: byId(ctx, findApps, (r) => r.uuid),
});

const loaders = (c: SubgraphContext) => perRequest(c, 'tenancy', createLoaders);

/** The services' user as the GraphQL User. */
export const toGraphUser = (u: UserAccount) => ({ ...u, id: u.uuid });

// Only active users are ever loaded by reference.
const userFromRow = (u: UserRow) => ({ ...u, id: u.uuid, isActive: true, dateJoined: u.createdAt });

// The domain objects of organizations, sites, domains and apps as their GraphQL types. The UUID
// of the parent entity stays on a site, domain or app (not a schema field) for the resolver of
// its `organization` or `site` field.
export const toGraphOrganization = (o: Organization) => ({
  id: o.uuid,
  slug: o.slug,
  name: o.name,
  isActive: o.isActive,
  createdAt: o.createdAt,
  updatedAt: o.updatedAt,
});

export const toGraphSite = (s: Site) => ({
  id: s.uuid,
  slug: s.slug,
  name: s.name,
  description: s.description,
  environment: s.environment,
  siteSettings: s.siteSettings,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  organizationUuid: s.organizationUuid,
});

export const toGraphDomain = (d: Domain) => ({
  id: d.uuid,
  slug: d.slug,
  domain: d.domain,
  isPrimary: d.isPrimary,
  isActive: d.isActive,
  createdAt: d.createdAt,
  siteUuid: d.siteUuid,
});

export const toGraphApp = (a: App) => ({
  id: a.uuid,
  slug: a.slug,
  name: a.name,
  description: a.description,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
  siteUuid: a.siteUuid,
});

type GraphSite = ReturnType<typeof toGraphSite>;
type GraphDomain = ReturnType<typeof toGraphDomain>;
type GraphApp = ReturnType<typeof toGraphApp>;
const groupFromRow = (g: GroupRow) => ({ ...g, id: String(g.id) });

type Ref = { id: string };
const orNull =
  <R, T>(map: (r: R) => T) =>
  (r: R | null) =>
    r ? map(r) : null;

/** A read by reference as a nullable field: `not_found` answers null, every other refusal stays. */
const notFoundAsNull = <T>(p: Promise<T>): Promise<T | null> =>
  p.catch((e: unknown) => {
    if (e instanceof AppError && e.code === 'not_found') return null;
    throw e;
  });

export const tenancyResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  Query: {
    me: (_p, _a, { ctx }) => getMe(ctx).then(toGraphUser),
    organization: (_p, args: { slug: string }, { ctx }) => getOrganization(ctx, args.slug).then(toGraphOrganization),
    organizations: (_p, args: PageArgs, { ctx }) => listOrganizations(ctx, args).then((r) => toConnection(r, toGraphOrganization)),
    site: (_p, args: { slug: string }, { ctx }) => getSite(ctx, args.slug).then(toGraphSite),
    app: (_p, args: { slug: string }, { ctx }) => getApp(ctx, args.slug).then(toGraphApp),
  },
  User: {
    __resolveReference: (ref: Ref, c: SubgraphContext) => loaders(c).users.load(ref.id).then(orNull(userFromRow)),
  },
  Organization: {
    __resolveReference: (ref: Ref, c: SubgraphContext) => loaders(c).organizations.load(ref.id).then(orNull(toGraphOrganization)),
  },
  Site: {
    __resolveReference: (ref: Ref, c: SubgraphContext) => loaders(c).sites.load(ref.id).then(orNull(toGraphSite)),
    // Null when the caller sees the site through a grant on it but cannot view its organization.
    organization: (site: GraphSite, _a, c) => loaders(c).organizations.load(site.organizationUuid).then(orNull(toGraphOrganization)),
    domains: (site: Ref, args: PageArgs, { ctx }) => listSiteDomains(ctx, site.id, args).then((r) => toConnection(r, toGraphDomain)),
    domain: (site: Ref, args: { slug: string }, { ctx }) => notFoundAsNull(getDomain(ctx, site.id, args.slug).then(toGraphDomain)),
  },
  Domain: {
    __resolveReference: (ref: Ref, c: SubgraphContext) => loaders(c).domains.load(ref.id).then(orNull(toGraphDomain)),
    site: (d: GraphDomain, _a, c) => loaders(c).sites.load(d.siteUuid).then(orNull(toGraphSite)),
  },
  Group: {
    __resolveReference: (ref: Ref, c: SubgraphContext) => loaders(c).groups.load(ref.id).then(orNull(groupFromRow)),
    organization: (g: GroupRow, _a, c) =>
      g.organizationUuid ? loaders(c).organizations.load(g.organizationUuid).then(orNull(toGraphOrganization)) : null,
  },
  App: {
    __resolveReference: (ref: Ref, c: SubgraphContext) => loaders(c).apps.load(ref.id).then(orNull(toGraphApp)),
    site: (a: GraphApp, _a, c) => loaders(c).sites.load(a.siteUuid).then(orNull(toGraphSite)),
  },
};
