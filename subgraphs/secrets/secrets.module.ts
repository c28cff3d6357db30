// The secrets module: secret types, tags, secrets at site and app tier, history, encryption
// (seed 2 "Secrets", DECISIONS §9).
import type { ModuleManifest } from '../core/module.js';
import { ensureSystemTypes } from './secret-type.service.js';
import { secretTypesRoutes } from './secret-types.routes.js';
import { tagsRoutes } from './tags.routes.js';
import { renderSecretsError } from './secrets-errors.js';
import { secretsResolvers } from './secrets.resolvers.js';
import { secretsRoutes } from './secrets.routes.js';

export const secretsModule: ModuleManifest = {
  name: 'secrets',
  resolvers: [secretsResolvers],
  routes: [...secretTypesRoutes, ...tagsRoutes, ...secretsRoutes],
  fieldPermissions: {
    'Site.secrets': 'secrets:read',
    'Site.secretTypes': 'secrets:read',
    'Site.secretType': 'secrets:read',
    'Site.secretTags': 'secrets:read',
    'Site.secretTag': 'secrets:read',
    'Site.secretHistory': 'secrets:read',
  },
  restErrors: renderSecretsError,
  permissions: [
    { codename: 'secrets:read', name: 'Can read secrets', resource: 'secrets', scope: 'site' },
    { codename: 'secrets:write', name: 'Can write secrets', resource: 'secrets', scope: 'site' },
  ],
  register(platform) {
    // DECISIONS §9: every site starts with the system secret types, created with the site.
    platform.hooks.on('siteCreated', (tx, site) => ensureSystemTypes(tx, site.id));
  },
};
