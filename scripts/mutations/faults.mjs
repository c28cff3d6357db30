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
    id: 'analytics: writes need only analytics:read',
    why: 'A member who may only read saved queries could create, change and delete them.',
    edits: [{ files: 'subgraphs/analytics/query/query.service.ts', find: /'analytics:write'\)/g, replace: "'analytics:read')" }],
    tests: ['test/e2e/analytics-queries.test.ts'],
  },
  {
    id: 'analytics: execute needs only analytics:read',
    why: 'A member who may only read saved queries could run them against the site data and external engines.',
    edits: [{ files: 'subgraphs/analytics/query/execute.service.ts', find: "'analytics:execute'", replace: "'analytics:read'" }],
    tests: ['test/e2e/analytics-queries.test.ts'],
  },
  {
    id: 'analytics: query lookup without the site filter',
    why: 'A query of another site with the same app slug and query slug would be readable and executable.',
    edits: [
      {
        files: 'subgraphs/analytics/query/query.repository.ts',
        find: 'FROM analytics_queries WHERE site_id = $1 AND app_id = $2 AND slug = $3`, [siteId, appId, slug]',
        replace: 'FROM analytics_queries WHERE $1::int IS NOT NULL AND $2::int IS NOT NULL AND slug = $3`, [siteId, appId, slug]',
      },
    ],
    tests: ['test/e2e/analytics-isolation.test.ts'],
  },
  {
    id: 'analytics: internal queries run without the site role',
    why: 'An internal query would run with the platform account and could read every site and the platform tables.',
    edits: [{ files: 'subgraphs/analytics/engines/internal.ts', find: '; SET LOCAL ROLE "${role}"`', replace: '`' }],
    tests: ['test/e2e/analytics-isolation.test.ts'],
  },
];
