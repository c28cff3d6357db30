// Chooses the provider of each kind from configuration (DECISIONS §1), once per platform.
import path from 'node:path';
import type { Config } from '../../core/config.js';
import { GraphProvider } from './graph.provider.js';
import { LocalProvider } from './local.provider.js';
import type { ProviderName, StorageProvider } from './provider.js';
import { S3Provider } from './s3.provider.js';

export interface Providers {
  get(name: ProviderName): StorageProvider | null;
}

export function createProviders(config: Readonly<Config>): Providers {
  const objectStore: StorageProvider = config.storage.s3
    ? new S3Provider(config.storage.s3)
    : new LocalProvider(path.join(config.dataDir, 'objects'));
  const documentLibrary: StorageProvider | null = config.storage.graph
    ? new GraphProvider(config.storage.graph, path.join(config.dataDir, 'objects', '.tmp'))
    : null;
  return { get: (name) => (name === 'object_store' ? objectStore : documentLibrary) };
}
