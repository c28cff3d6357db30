// Every module of the platform, once. The GraphQL registry, the REST route table, the
// permission catalogue, the seeds and the hooks loop over this list: adding a module is one
// folder (subgraphs/<name>/ with its <name>.module.ts) and one line here.
import type { ModuleManifest } from './core/module.js';
import { analyticsModule } from './analytics/analytics.module.js';
import { authModule } from './auth/auth.module.js';
import { dataModule } from './data/data.module.js';
import { eventsModule } from './events/events.module.js';
import { secretsModule } from './secrets/secrets.module.js';
import { storageModule } from './storage/storage.module.js';
import { tenancyModule } from './tenancy/tenancy.module.js';

export const MODULES: readonly ModuleManifest[] = Object.freeze([
  tenancyModule,
  storageModule,
  secretsModule,
  analyticsModule,
  dataModule,
  eventsModule,
  authModule,
]);

/** The modules that have a GraphQL subgraph. */
export const SUBGRAPH_NAMES: readonly string[] = MODULES.filter((m) => m.resolvers).map((m) => m.name);

export function findModule(name: string): ModuleManifest | undefined {
  return MODULES.find((m) => m.name === name);
}
