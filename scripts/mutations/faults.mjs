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
    id: 'storage: writes need only storage:read',
    why: 'A member who may only read a private bucket could upload, replace and delete its objects.',
    edits: [
      {
        files: 'subgraphs/storage/storage-access.ts',
        find: /create: 'storage:create',\n {2}update: 'storage:update',\n {2}delete: 'storage:delete',/,
        replace: "create: 'storage:read',\n  update: 'storage:read',\n  delete: 'storage:read',",
      },
    ],
    tests: ['test/e2e/storage-isolation.test.ts'],
  },
  {
    id: 'storage: object lookup by uuid ignores the bucket and site',
    why: "Another site's object (or another bucket's) would be readable by its uuid through one's own bucket.",
    edits: [
      {
        files: 'subgraphs/storage/storage.repository.ts',
        find: 'WHERE o.site_id = $1 AND o.bucket_id = $2 AND o.uuid = $3::uuid',
        replace: 'WHERE $1::int IS NOT NULL AND $2::int IS NOT NULL AND o.uuid = $3::uuid',
      },
    ],
    tests: ['test/e2e/storage-isolation.test.ts'],
  },
];
