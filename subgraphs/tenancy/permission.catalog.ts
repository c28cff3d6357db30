// Every permission of the platform (DECISIONS §4), seeded into `permissions` at start.

export interface PermissionDef {
  codename: string;
  name: string;
  resource: string;
}

const p = (codename: string, name: string, resource: string): PermissionDef => ({ codename, name, resource });

export const PERMISSIONS: PermissionDef[] = [
  p('view_organization', 'Can view organization', 'organization'),
  p('change_organization', 'Can change organization', 'organization'),
  p('delete_organization', 'Can delete organization', 'organization'),
  p('manage_organization', 'Can manage organization', 'organization'),
  p('invite_members', 'Can invite members', 'organization'),
  p('view_site', 'Can view site', 'site'),
  p('change_site', 'Can change site', 'site'),
  p('delete_site', 'Can delete site', 'site'),
  p('manage_site', 'Can manage site', 'site'),
  p('storage:read', 'Can read storage', 'storage'),
  p('storage:create', 'Can create storage objects', 'storage'),
  p('storage:update', 'Can update storage objects', 'storage'),
  p('storage:delete', 'Can delete storage objects', 'storage'),
  p('secrets:read', 'Can read secrets', 'secrets'),
  p('secrets:write', 'Can write secrets', 'secrets'),
  p('analytics:read', 'Can read analytics queries', 'analytics'),
  p('analytics:execute', 'Can execute analytics queries', 'analytics'),
  p('analytics:write', 'Can write analytics queries', 'analytics'),
  p('data:read', 'Can read data', 'data'),
  p('data:write', 'Can write data', 'data'),
  p('functions:read', 'Can read functions', 'functions'),
  p('functions:write', 'Can write functions', 'functions'),
  p('functions:execute', 'Can execute functions', 'functions'),
];

export const PERMISSION_CODENAMES = new Set(PERMISSIONS.map((x) => x.codename));

const SITE_MODULES = new Set(['site', 'storage', 'secrets', 'analytics', 'data', 'functions']);

/**
 * The permissions that grant `permission`: itself and the `manage_*` of its resource.
 * `manage_organization` covers the organization's own permissions; `manage_site` covers the
 * site's and every site module's (storage, secrets, analytics, data, functions).
 */
export function grantingPermissions(permission: string): string[] {
  const def = PERMISSIONS.find((x) => x.codename === permission);
  if (!def) throw new Error(`unknown permission ${permission}`);
  if (def.resource === 'organization') return permission === 'manage_organization' ? [permission] : [permission, 'manage_organization'];
  if (SITE_MODULES.has(def.resource)) return permission === 'manage_site' ? [permission] : [permission, 'manage_site'];
  return [permission];
}
