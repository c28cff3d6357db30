// The permission matrix's fixtures, one per module. A module that lands with routes or
// GraphQL fields declaring a permission adds its file here (test/support/matrix/<module>.ts).
import { analyticsFixture } from './analytics.js';
import { dataFixture } from './data.js';
import { eventsFixture } from './events.js';
import { secretsFixture } from './secrets.js';
import { storageFixture } from './storage.js';
import { authFixture, tenancyFixture } from './tenancy.js';
import type { ModuleFixture } from './types.js';

export const FIXTURES: readonly ModuleFixture[] = [
  tenancyFixture,
  authFixture,
  dataFixture,
  secretsFixture,
  storageFixture,
  analyticsFixture,
  eventsFixture,
];
