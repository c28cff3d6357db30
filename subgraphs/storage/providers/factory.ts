// Chooses the provider of each kind from configuration (DECISIONS §1), once per platform.
import path from 'node:path';
import type { Config, StorageConfig } from '../../core/config.js';
import { GraphProvider } from './graph.provider.js';
import { LocalProvider } from './local.provider.js';
import type { ProviderName, StorageProvider } from './provider.js';

export interface Providers {
  get(name: ProviderName): StorageProvider | null;
}

/**
 * The S3 provider, with the AWS SDK imported on first use: a process on local files never
 * loads it, and one on S3 loads it once.
 */
function lazyS3(settings: NonNullable<StorageConfig['s3']>): StorageProvider {
  let made: Promise<StorageProvider> | null = null;
  const s3 = () => (made ??= import('./s3.provider.js').then((m) => new m.S3Provider(settings)));
  return {
    name: 'object_store',
    put: async (key, body, contentType) => (await s3()).put(key, body, contentType),
    get: async (key, range) => (await s3()).get(key, range),
    delete: async (key) => (await s3()).delete(key),
    deletePrefix: async (prefix) => (await s3()).deletePrefix(prefix),
    copy: async (from, to) => (await s3()).copy(from, to),
    list: async (prefix) => (await s3()).list(prefix),
  };
}

export function createProviders(config: Readonly<Config>): Providers {
  const objectStore: StorageProvider = config.storage.s3
    ? lazyS3(config.storage.s3)
    : new LocalProvider(path.join(config.dataDir, 'objects'));
  const documentLibrary: StorageProvider | null = config.storage.graph
    ? new GraphProvider(config.storage.graph, path.join(config.dataDir, 'objects', '.tmp'))
    : null;
  return { get: (name) => (name === 'object_store' ? objectStore : documentLibrary) };
}
