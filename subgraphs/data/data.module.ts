// The data module: datatables from Frictionless schemas and their records (seed 3 "Data
// service", DECISIONS §6).
import type { ModuleManifest } from '../core/module.js';
import { renderDataError } from './data-errors.js';
import { dataResolvers } from './data.resolvers.js';
import { recordReadResolvers } from './records-read.resolvers.js';
import { recordReadRoutes } from './records-read.routes.js';
import { recordWriteResolvers } from './records-write.resolvers.js';
import { recordWriteRoutes } from './records-write.routes.js';
import { tableCounts } from './table/table.service.js';
import { datatableRoutes } from './tables.routes.js';

export const dataModule: ModuleManifest = {
  name: 'data',
  resolvers: [dataResolvers, recordReadResolvers, recordWriteResolvers],
  routes: [...datatableRoutes, ...recordReadRoutes, ...recordWriteRoutes],
  fieldPermissions: {
    'Query.records': 'data:read',
    'Query.record': 'data:read',
    'Query.datatable': 'data:read',
    'App.tables': 'data:read',
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
