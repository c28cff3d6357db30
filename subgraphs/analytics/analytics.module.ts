// The analytics module: saved query templates run read-only on the tenant's schema or on
// external engines (seed 2 "Analytics", DECISIONS §10).
import type { ModuleManifest } from '../core/module.js';
import { renderAnalyticsError } from './analytics-errors.js';
import { analyticsResolvers } from './analytics.resolvers.js';

export const analyticsModule: ModuleManifest = {
  name: 'analytics',
  resolvers: [analyticsResolvers],
  routes: [],
  restErrors: renderAnalyticsError,
  permissions: [
    { codename: 'analytics:read', name: 'Can read analytics queries', resource: 'analytics', scope: 'site' },
    { codename: 'analytics:execute', name: 'Can execute analytics queries', resource: 'analytics', scope: 'site' },
    { codename: 'analytics:write', name: 'Can write analytics queries', resource: 'analytics', scope: 'site' },
  ],
};
