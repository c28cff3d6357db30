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
  // What each field's service checks (the REST route of the same service declares the same).
  // Lists that filter by visibility instead of refusing, and user/staff rules, are null.
  fieldPermissions: {
    'Query.me': null,
    'Query.organization': 'view_organization',
    'Query.organizations': null,
    'Query.site': 'view_site',
    'Query.app': 'view_site',
    'Query.member': 'view_organization',
    'Query.invitation': null,
    'Query.auditEntries': null,
    'Query.sites': null,
    'Query.apps': 'view_site',
    'Query.apiKeys': 'manage_site',
    'Query.siteConfig': 'view_site',
    'Query.users': null,
    'Query.user': null,
    'Query.groups': null,
    'Query.group': 'view_organization',
    'Query.permissions': null,
    'Site.domains': 'view_site',
    'Site.domain': 'view_site',
    'User.organizations': null,
    'Organization.sites': 'view_organization',
    'Site.apps': 'view_site',
    'App.apiKeys': 'manage_site',
    'Organization.members': 'view_organization',
    'Organization.invitations': 'invite_members',
    'Organization.auditEntries': 'manage_organization',
    'Mutation.createOrganization': null,
    'Mutation.updateOrganization': 'change_organization',
    'Mutation.deleteOrganization': 'delete_organization',
    'Mutation.restoreOrganization': 'delete_organization',
    'Mutation.updateMember': 'manage_organization',
    'Mutation.removeMember': 'manage_organization',
    'Mutation.createInvitation': 'invite_members',
    'Mutation.resendInvitation': 'invite_members',
    'Mutation.revokeInvitation': 'invite_members',
    'Mutation.acceptInvitation': null,
    'Mutation.declineInvitation': null,
    'Mutation.createSite': 'manage_site',
    'Mutation.updateSite': 'change_site',
    'Mutation.deleteSite': 'delete_site',
    'Mutation.restoreSite': 'delete_site',
    'Mutation.createDomain': 'change_site',
    'Mutation.updateDomain': 'change_site',
    'Mutation.deleteDomain': 'change_site',
    'Mutation.createApp': 'manage_site',
    'Mutation.updateApp': 'manage_site',
    'Mutation.deleteApp': 'manage_site',
    'Mutation.createApiKey': 'manage_site',
    'Mutation.revokeApiKey': 'manage_site',
    'Mutation.createUser': null,
    'Mutation.updateUser': null,
    'Mutation.deleteUser': null,
    'Mutation.updateProfile': null,
    'Mutation.createGroup': 'manage_organization',
    'Mutation.updateGroup': 'manage_organization',
    'Mutation.deleteGroup': 'manage_organization',
    'Mutation.addGroupMember': 'manage_organization',
    'Mutation.removeGroupMember': 'manage_organization',
  },
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
