// Start-up seeds of every module, run once after the migrations by each entry point
// (server, CLI, tests, benchmarks). A module with seeds adds them here, in one place.
import type { BootHooks } from './core/platform.js';
import { seedTenancy } from './tenancy/seed.js';

export const MODULE_SEEDS: BootHooks = {
  afterMigrate: async (platform) => {
    await seedTenancy(platform);
  },
};
