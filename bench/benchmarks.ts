// Every benchmark of `npm run bench`, in the order they run (bench/run.ts, bench/cpu-per-request.ts).
import { ANALYTICS_BENCHMARKS } from './analytics.bench.js';
import { DATA_BENCHMARKS } from './data.bench.js';
import { DATA_WRITE_BENCHMARKS } from './data-write.bench.js';
import { SECRETS_BENCHMARKS } from './secrets.bench.js';
import { STORAGE_BENCHMARKS } from './storage.bench.js';
import { TENANCY_BENCHMARKS } from './tenancy.bench.js';
import { GRAPHQL_BENCHMARKS } from './graphql.bench.js';
import { RELATIONS_BENCHMARKS } from './relations.bench.js';
import type { Benchmark } from './bench-types.js';

export const BENCHMARKS: Benchmark[] = [
  {
    name: 'GET /api/users/me/ (JWT)',
    prepare: async ({ token }) => ({ method: 'GET', url: '/api/users/me/', headers: { authorization: `Bearer ${token}` } }),
  },
  ...TENANCY_BENCHMARKS,
  ...SECRETS_BENCHMARKS,
  ...DATA_BENCHMARKS,
  ...DATA_WRITE_BENCHMARKS,
  ...ANALYTICS_BENCHMARKS,
  ...STORAGE_BENCHMARKS,
  ...GRAPHQL_BENCHMARKS,
  ...RELATIONS_BENCHMARKS,
];
