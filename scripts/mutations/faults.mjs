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
    id: 'events: function writes need only functions:read',
    why: 'A member who may only read functions could create, change and delete them (and run arbitrary code).',
    edits: [
      {
        files: 'subgraphs/events/functions/function.service.ts',
        find: /appFor\(ctx, appRef, 'functions:write'\)/g,
        replace: "appFor(ctx, appRef, 'functions:read')",
      },
    ],
    tests: ['test/e2e/events-functions.test.ts'],
  },
  {
    id: 'events: invocation lookup without the site filter',
    why: "A caller could read another tenant's invocation (params, results, logs) by its id.",
    edits: [
      {
        files: 'subgraphs/events/invocations/invocation.repository.ts',
        find: '${SELECT} WHERE i.site_id = $1 AND i.id = $2`, [siteId, id]',
        replace: '${SELECT} WHERE $1::int IS NOT NULL AND i.id = $2`, [siteId, id]',
      },
    ],
    tests: ['test/e2e/events-isolation.test.ts'],
  },
];
