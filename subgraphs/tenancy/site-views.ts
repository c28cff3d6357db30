// The REST views of sites, domains and apps (seed 1; DECISIONS §4, §5): the seed's snake_case
// shapes rendered from the services' domain objects, for the REST routes only. GraphQL maps the
// same objects in tenancy.resolvers.ts (`toGraphSite`, `toGraphDomain`, `toGraphApp`).
import type { App } from './app.service.js';
import type { Domain } from './domain.service.js';
import type { Site, SiteConfig } from './site.service.js';

/** A site (DECISIONS §4: `site_settings`; the organization by slug). */
export const toSiteRest = (s: Site) => ({
  uuid: s.uuid,
  slug: s.slug,
  name: s.name,
  description: s.description,
  schema_name: s.schemaName,
  environment: s.environment,
  site_settings: s.siteSettings,
  is_active: s.isActive,
  is_deleted: s.isDeleted,
  organization: s.organizationSlug,
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
});

/** A domain; `site` is its site's UUID. */
export const toDomainRest = (d: Domain) => ({
  uuid: d.uuid,
  slug: d.slug,
  domain: d.domain,
  is_primary: d.isPrimary,
  is_active: d.isActive,
  site: d.siteUuid,
  created_at: d.createdAt.toISOString(),
});

/** An app with the number of its data tables (`appTableCounts`). */
export const toAppRest = (a: App, tableCount: number) => ({
  id: a.id,
  uuid: a.uuid,
  name: a.name,
  slug: a.slug,
  description: a.description,
  table_count: tableCount,
  created_at: a.createdAt.toISOString(),
  updated_at: a.updatedAt.toISOString(),
});

/** `GET /api/sites/config/`: the site served at the host, its organization and active domains. */
export const toSiteConfigRest = (c: SiteConfig) => ({
  site: { uuid: c.site.uuid, slug: c.site.slug, name: c.site.name, environment: c.site.environment, schema_name: c.site.schemaName },
  organization: c.organization,
  site_settings: c.siteSettings,
  primary_domain: c.primaryDomain,
  domains: c.domains.map((d) => ({ uuid: d.uuid, slug: d.slug, domain: d.domain, is_primary: d.isPrimary, is_active: d.isActive })),
});
