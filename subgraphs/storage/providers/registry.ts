// The providers of a platform, made once from its configuration (subgraphs/storage/providers/factory.ts).
import type { Platform } from '../../core/context.js';
import { createProviders, type Providers } from './factory.js';
import type { ProviderName, StorageProvider } from './provider.js';

const byPlatform = new WeakMap<Platform, Providers>();

/** The provider of `name`, or null when it is not configured (document_library without GRAPH_*). */
export function providerFor(platform: Platform, name: ProviderName): StorageProvider | null {
  let p = byPlatform.get(platform);
  if (!p) {
    p = createProviders(platform.config);
    byPlatform.set(platform, p);
  }
  return p.get(name);
}
