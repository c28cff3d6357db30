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
  fieldPermissions: {
    'Query.records': 'data:read',
    'Query.record': 'data:read',
    'Query.datatable': 'data:read',
    'App.tables': 'data:read',
    'DataTable.records': 'data:read',
    'DataTable.hierarchy': 'data:read',
    'Mutation.createRecord': 'data:write',
    'Mutation.createRecords': 'data:write',
    'Mutation.upsertRecord': 'data:write',
    'Mutation.updateRecord': 'data:write',
    'Mutation.updateRecords': 'data:write',
    'Mutation.updateRecordsWhere': 'data:write',
    'Mutation.deleteRecord': 'data:write',
    'Mutation.deleteRecords': 'data:write',
    'Mutation.createSchema': 'data:write',
    'Mutation.deleteTable': 'data:write',
    // Relationship fields and aggregation read records of the app's tables: data:read on the site.
    'DataRecord.related': 'data:read',
    'DataRecord.relatedList': 'data:read',
    'Query.aggregate': 'data:read',
  },
  restErrors: renderDataError,
  permissions: [
    { codename: 'data:read', name: 'Can read data', resource: 'data', scope: 'site' },
    { codename: 'data:write', name: 'Can write data', resource: 'data', scope: 'site' },
  ],
  register(platform) {
    platform.hooks.provide('appTableCounts', tableCounts);
  },
};
