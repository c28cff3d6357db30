// The tenancy module: organizations, members, invitations, sites, domains, apps and API keys,
// users, profiles, groups and the permission catalogue (seed 1, DECISIONS §2–§5).
import type { ModuleManifest } from '../core/module.js';
import type { PermissionDef } from '../core/permissions.js';
import { organizationAdminResolvers } from './graphql/organizations.resolvers.js';
import { siteAdminResolvers } from './graphql/sites.resolvers.js';
import { userAdminResolvers } from './graphql/users.resolvers.js';
import { organizationsRoutes } from './organizations.routes.js';
import { seedTenancy } from './seed.js';
import { sitesRoutes } from './sites.routes.js';
import { tenancyResolvers } from './tenancy.resolvers.js';
import { usersRoutes } from './users.routes.js';

const org = (codename: string, name: string): PermissionDef => ({ codename, name, resource: 'organization', scope: 'organization' });
const site = (codename: string, name: string): PermissionDef => ({ codename, name, resource: 'site', scope: 'site' });

export const tenancyModule: ModuleManifest = {
  name: 'tenancy',
  resolvers: [tenancyResolvers, organizationAdminResolvers, siteAdminResolvers, userAdminResolvers],
  routes: [...organizationsRoutes, ...sitesRoutes, ...usersRoutes],
  permissions: [
    org('view_organization', 'Can view organization'),
    org('change_organization', 'Can change organization'),
    org('delete_organization', 'Can delete organization'),
    org('manage_organization', 'Can manage organization'),
    org('invite_members', 'Can invite members'),
    site('view_site', 'Can view site'),
    site('change_site', 'Can change site'),
    site('delete_site', 'Can delete site'),
    site('manage_site', 'Can manage site'),
  ],
  seed: seedTenancy,
};
