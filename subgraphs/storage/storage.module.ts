// The storage module: buckets and objects on the object-store and document-library providers
// (seed 2 "Storage", DECISIONS §8).
import type { ModuleManifest } from '../core/module.js';
import { startCleanupSchedule } from './cleanup.js';
import { renderStorageError } from './storage-errors.js';
import { storageResolvers } from './storage.resolvers.js';
import { storageRoutes } from './storage.routes.js';

export const storageModule: ModuleManifest = {
  name: 'storage',
  resolvers: [storageResolvers],
  routes: storageRoutes,
  restErrors: renderStorageError,
  fieldPermissions: {
    'App.buckets': 'storage:read',
    'Bucket.objects': 'storage:read',
    'App.bucket': 'storage:read',
    'Bucket.object': 'storage:read',
    'Mutation.createBucket': 'storage:create',
    'Mutation.updateBucket': 'storage:update',
    'Mutation.deleteBucket': 'storage:delete',
    'Mutation.uploadObject': 'storage:create',
    'Mutation.updateObject': 'storage:update',
    'Mutation.copyObject': 'storage:create',
    'Mutation.moveObject': 'storage:update',
    'Mutation.deleteObject': 'storage:delete',
  },
  permissions: [
    { codename: 'storage:read', name: 'Can read storage', resource: 'storage', scope: 'site' },
    { codename: 'storage:create', name: 'Can create storage objects', resource: 'storage', scope: 'site' },
    { codename: 'storage:update', name: 'Can update storage objects', resource: 'storage', scope: 'site' },
    { codename: 'storage:delete', name: 'Can delete storage objects', resource: 'storage', scope: 'site' },
  ],
  register(platform) {
    // Leftover provider content (crash between a commit and its content removal, uploads never
    // committed): docs/storage.md "Crash safety".
    startCleanupSchedule(platform);
  },
};
