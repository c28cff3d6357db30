// The REST view of organizations (seed 1): the seed's snake_case shape rendered from the
// services' domain objects, for the REST routes only. GraphQL maps the same objects in
// tenancy.resolvers.ts (`toGraphOrganization`).
import type { Organization } from './organization.service.js';

/** `{id, uuid, slug, name, is_active, is_deleted, created, updated}` (the seed's names for the times). */
export const toOrganizationRest = (o: Organization) => ({
  id: o.id,
  uuid: o.uuid,
  slug: o.slug,
  name: o.name,
  is_active: o.isActive,
  is_deleted: o.isDeleted,
  created: o.createdAt.toISOString(),
  updated: o.updatedAt.toISOString(),
});
