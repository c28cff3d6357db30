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
    edits: [
      { files: 'subgraphs/secrets/*.ts', find: /can\(ctx, 'secrets:write'/g, replace: "can(ctx, 'secrets:read'" },
      { files: 'subgraphs/secrets/*.ts', find: /secretsSite\(ctx, 'secrets:write'\)/g, replace: "secretsSite(ctx, 'secrets:read')" },
    ],
    tests: ['test/e2e/permission-matrix.test.ts'],
  },
  {
    id: 'tenancy: changing an organization needs only view_organization',
    why: 'Any member of an organization could rename it or change its slug.',
    edits: [
      {
        files: 'subgraphs/tenancy/organization.service.ts',
        find: "{ permission: 'change_organization' }",
        replace: "{ permission: 'view_organization' }",
      },
    ],
    tests: ['test/e2e/permission-matrix.test.ts'],
  },
  {
    id: 'tenancy: site administration needs only view_site',
    why: 'A member who may only view a site could create, change and delete its apps and API keys.',
    edits: [
      { files: 'subgraphs/tenancy/app.service.ts', find: "mayAdminister(ctx, 'manage_site'", replace: "mayAdminister(ctx, 'view_site'" },
    ],
    tests: ['test/e2e/permission-matrix.test.ts'],
  },
  {
    id: 'data: creating and dropping tables needs only data:read',
    why: 'A member who may only read data could create, migrate and drop the tables of an app.',
    edits: [
      {
        files: 'subgraphs/data/table/table.service.ts',
        find: /loadApp\(ctx, appRef, 'data:write'\)/g,
        replace: "loadApp(ctx, appRef, 'data:read')",
      },
    ],
    tests: ['test/e2e/permission-matrix.test.ts'],
  },
  {
    id: 'tenancy: app lookup without the site filter',
    why: "An app slug or UUID of another tenant would resolve on this tenant's host.",
    edits: [
      {
        files: 'subgraphs/tenancy/app.repository.ts',
        find: 'if (f.siteId !== null) add(',
        replace: 'if (f.siteId === -1) add(',
      },
    ],
    tests: ['test/e2e/tenancy-isolation.test.ts'],
  },
  {
    id: 'data: table access resolves apps of any site',
    why: "Another tenant's app, its tables and records would be reachable from this tenant's host.",
    edits: [
      {
        files: 'subgraphs/data/table/table-access.ts',
        find: 'LEFT JOIN apps a ON a.site_id = s.id AND',
        replace: 'LEFT JOIN apps a ON TRUE AND',
      },
    ],
    tests: ['test/e2e/data-tables-isolation.test.ts'],
  },
  {
    id: 'secrets: exact key lookup without the site filter',
    why: "A site-tier secret of another tenant with the same key could be replaced or deleted from this tenant's host.",
    edits: [
      {
        files: 'subgraphs/secrets/secret.repository.ts',
        find: '`${SELECT} WHERE s.site_id = $1 AND s.app_id IS NULL AND s.key = $2`',
        replace: '`${SELECT} WHERE $1::int IS NOT NULL AND s.app_id IS NULL AND s.key = $2`',
      },
    ],
    tests: ['test/e2e/secrets-isolation.test.ts'],
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
  {
    id: "analytics: a site's executions are not bounded",
    why: 'One site could hold every connection of the pool with concurrent executions and stall the other sites.',
    edits: [
      {
        files: 'subgraphs/analytics/query/execute.service.ts',
        find: 'new Lanes(ctx.platform.config.analyticsMaxConcurrent, MAX_WAITING)',
        replace: 'new Lanes(1_000_000, MAX_WAITING)',
      },
    ],
    tests: ['test/e2e/analytics-queries.test.ts'],
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
  {
    id: 'storage: uploads need only storage:read',
    why: 'A member who may only read a private bucket could upload into it (REST and GraphQL uploadObject).',
    edits: [
      {
        files: 'subgraphs/storage/upload.service.ts',
        find: "return bucketFor(ctx, appRef, bucketSlug, 'create');",
        replace: "return bucketFor(ctx, appRef, bucketSlug, 'read');",
      },
    ],
    tests: ['test/e2e/permission-matrix.test.ts'],
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
