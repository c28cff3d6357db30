// The analytics module: saved query templates run read-only on the tenant's schema or on
// external engines (seed 2 "Analytics", DECISIONS §10, docs/analytics.md).
import type { ModuleManifest } from '../core/module.js';
import { renderAnalyticsError } from './analytics-errors.js';
import { analyticsResolvers } from './analytics.resolvers.js';
import { closeConnectors } from './engines/registry.js';
import { analyticsRoutes } from './queries.routes.js';

export const analyticsModule: ModuleManifest = {
  name: 'analytics',
  resolvers: [analyticsResolvers],
  routes: analyticsRoutes,
  restErrors: renderAnalyticsError,
  permissions: [
    { codename: 'analytics:read', name: 'Can read analytics queries', resource: 'analytics', scope: 'site' },
    { codename: 'analytics:execute', name: 'Can execute analytics queries', resource: 'analytics', scope: 'site' },
    { codename: 'analytics:write', name: 'Can write analytics queries', resource: 'analytics', scope: 'site' },
  ],
  fieldPermissions: {
    'App.queries': 'analytics:read',
    'Query.analyticsQuery': 'analytics:read',
    'Query.analyticsExecutions': 'analytics:read',
    'AnalyticsQuery.executions': 'analytics:read',
    'Mutation.createAnalyticsQuery': 'analytics:write',
    'Mutation.updateAnalyticsQuery': 'analytics:write',
    'Mutation.deleteAnalyticsQuery': 'analytics:write',
    'Mutation.executeAnalyticsQuery': 'analytics:execute',
  },
  register(platform) {
    // External connection pools close with the platform.
    const close = platform.close.bind(platform);
    platform.close = async () => {
      await closeConnectors(platform);
      await close();
    };
  },
};
