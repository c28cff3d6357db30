// The data module: datatables from Frictionless schemas and their records (seed 3 "Data
// service", DECISIONS §6).
import type { ModuleManifest } from '../core/module.js';
import { renderDataError } from './data-errors.js';
import { dataResolvers } from './data.resolvers.js';
import { recordReadResolvers } from './records-read.resolvers.js';
import { recordReadRoutes } from './records-read.routes.js';
import { recordWriteResolvers } from './records-write.resolvers.js';
import { relationResolvers } from './relations.resolvers.js';
import { recordWriteRoutes } from './records-write.routes.js';
import { tableCounts } from './table/table.service.js';
import { datatableRoutes } from './tables.routes.js';

export const dataModule: ModuleManifest = {
  name: 'data',
  resolvers: [dataResolvers, recordReadResolvers, recordWriteResolvers, relationResolvers],
  routes: [...datatableRoutes, ...recordReadRoutes, ...recordWriteRoutes],
  restErrors: renderDataError,
  // Relationship fields and aggregation read records of the app's tables: data:read on the site.
  fieldPermissions: {
    'DataRecord.related': 'data:read',
    'DataRecord.relatedList': 'data:read',
    'Query.aggregate': 'data:read',
  },
  permissions: [
    { codename: 'data:read', name: 'Can read data', resource: 'data', scope: 'site' },
    { codename: 'data:write', name: 'Can write data', resource: 'data', scope: 'site' },
  ],
  register(platform) {
    platform.hooks.provide('appTableCounts', tableCounts);
  },
};
