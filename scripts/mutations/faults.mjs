// Deliberate faults the test suite must catch (scripts/mutations/run.mjs applies each one to a
// scratch copy and runs `tests` there; the fault is caught when they fail). Keep the list beside
// the code it breaks: when a module lands, add its faults (a write permission weakened to the
// read permission, the site filter dropped from one repository query, …). A pattern that
// matches nothing makes the run fail as "stale": update it when the code moves.
//
// Each fault: id, why (what would go wrong in production), edits [{files, find, replace}],
// tests (the test files that must catch it; keep them few, CI time is bounded).

export const FAULTS = [
  {
    id: 'data: record writes need only data:read',
    why: 'A member who may only read a table could create, change and delete its records.',
    edits: [{ files: 'subgraphs/data/records/*.service.ts', find: /'data:write'/g, replace: "'data:read'" }],
    tests: ['test/e2e/permission-matrix.test.ts'],
  },
  {
    id: 'secrets: writes need only secrets:read',
    why: 'A member who may only read secrets could create, replace and delete them.',
    edits: [{ files: 'subgraphs/secrets/**/*.ts', find: /can\(ctx, 'secrets:write'/g, replace: "can(ctx, 'secrets:read'" }],
    tests: ['test/e2e/permission-matrix.test.ts'],
  },
  {
    id: 'kernel: grant cache never forgets',
    why: 'A member removed from an organization would keep reading its secrets and records.',
    edits: [
      {
        files: 'subgraphs/core/grant-cache.ts',
        find: 'export const GRANT_TTL_MS = 2_000;',
        replace: 'export const GRANT_TTL_MS = 3_600_000;',
      },
      {
        files: 'subgraphs/core/grant-cache.ts',
        find: /apply\(change: Invalidation\): void \{/,
        replace: 'apply(change: Invalidation): void {\n    return;',
      },
    ],
    tests: ['test/e2e/revocation.test.ts'],
  },
  {
    id: 'kernel: invalidations stay in the process that made them',
    why: 'An API key revoked or a user deactivated through a subgraph process would stay accepted at the gateway until its cache expires.',
    edits: [
      {
        files: 'subgraphs/core/invalidation.ts',
        find: "this.client.query('SELECT pg_notify($1, $2)'",
        replace: "this.client.query('SELECT $1::text, $2::text'",
      },
    ],
    tests: ['test/e2e/invalidation-distributed.test.ts'],
  },
  {
    id: 'tenancy: rights changes keep remembered grants',
    why: 'A member removed from an organization or a group, or a permission taken off, would keep reading records and secrets for a while.',
    edits: [
      {
        files: 'subgraphs/tenancy/access.service.ts',
        find: "ctx.platform.invalidation.publish({ kind: 'grants' });",
        replace: '// (no invalidation)',
      },
    ],
    tests: ['test/e2e/revocation.test.ts'],
  },
];
