// Every REST route the specification documents: the three seed documents in
// /work/shared/seeds and the design decisions (DECISIONS.md). `npm run routes` compares this
// list with the live route table (gateway/rest/route-table.ts) and writes ROUTES.md.
//
// Paths are relative to /api, in the route table's form (`:name` parameters, trailing slash,
// `*` for a bucket-relative object path). Console routes are also served under /api/cloud/.
import type { HttpMethod, RouteSpec } from '../../subgraphs/core/rest.js';

export interface DocumentedRoute {
  method: HttpMethod;
  path: string;
  scope: RouteSpec['scope'];
  module: string;
  /** Where it is documented: seed document and section, or the DECISIONS section. */
  source: string;
  /** A table route that serves this one too (the wildcard object route serves view/edit). */
  servedBy?: { method: HttpMethod; path: string };
}

/** A table route that no document names, kept on purpose. Each needs a reason. */
export interface ExtraRoute {
  method: HttpMethod;
  path: string;
  reason: string;
}

/** Served by the edge itself, outside the REST table (listed for completeness). */
export const EDGE_ENDPOINTS: { method: string; path: string; source: string }[] = [
  { method: 'GET', path: '/healthz', source: 'DECISIONS §1 Health' },
  { method: 'GET', path: '/readyz', source: 'DECISIONS §1 Health' },
  { method: 'GET', path: '/.well-known/jwks.json', source: 'DECISIONS §1 Token signing' },
  { method: 'GET, POST', path: '/graphql', source: 'DECISIONS §11' },
  { method: 'GET', path: '/graphql/ide/*', source: 'DECISIONS §11 (files of the IDE)' },
  { method: 'GET', path: '/', source: 'issue 11 (links to the API, its docs and health)' },
  { method: 'GET', path: '/api/openapi.json', source: 'DECISIONS §11' },
  { method: 'GET', path: '/api/docs/', source: 'DECISIONS §11 (Swagger UI and its files)' },
];

const S1 = 'seed 1 (tenancy)';
const S2 = 'seed 2 (storage, secrets, analytics)';
const S3 = 'seed 3 (events, data)';

function doc(methods: string, path: string, scope: RouteSpec['scope'], module: string, source: string): DocumentedRoute[] {
  return methods.split(' ').map((method) => ({ method: method as HttpMethod, path, scope, module, source }));
}

const bucket = '/apps/:app/storage/buckets/:bucket';
const objects = `${bucket}/objects`;
const records = '/apps/:app/datatables/:name/data';
const queries = '/apps/:app/analytics/queries';

export const DOCUMENTED_ROUTES: DocumentedRoute[] = [
  // Organizations, members, invitations (seed 1; DECISIONS §4)
  ...doc('GET POST', '/organizations/', 'console', 'tenancy', `${S1} Organizations`),
  ...doc('GET PUT DELETE', '/organizations/:org/', 'console', 'tenancy', `${S1} Organizations`),
  ...doc('PATCH', '/organizations/:org/', 'console', 'tenancy', 'DECISIONS §4 Organizations'),
  ...doc('POST', '/organizations/:org/restore/', 'console', 'tenancy', 'DECISIONS §4 DELETE'),
  ...doc('GET', '/organizations/:org/members/', 'console', 'tenancy', `${S1} Organizations; DECISIONS §4 Members`),
  ...doc('GET PATCH DELETE', '/organizations/:org/members/:user/', 'console', 'tenancy', 'DECISIONS §4 Members'),
  ...doc('POST', '/organizations/:org/invitations/', 'console', 'tenancy', `${S1} Organizations`),
  ...doc('GET', '/organizations/:org/invitations/', 'console', 'tenancy', 'DECISIONS §4 Invitations'),
  ...doc('DELETE', '/organizations/:org/invitations/:uuid/', 'console', 'tenancy', 'DECISIONS §4 Invitations'),
  ...doc('POST', '/organizations/:org/invitations/:uuid/resend/', 'console', 'tenancy', 'DECISIONS §4 Invitations'),
  ...doc('GET POST', '/organizations/:org/sites/', 'console', 'tenancy', `${S1} Organizations`),
  ...doc('GET', '/invitations/:token/', 'console', 'tenancy', 'DECISIONS §4 Invitations'),
  ...doc('POST', '/invitations/:token/accept/', 'console', 'tenancy', 'DECISIONS §4 Invitations'),
  ...doc('POST', '/invitations/:token/decline/', 'console', 'tenancy', 'DECISIONS §4 Invitations'),

  // Sites and domains (seed 1; DECISIONS §2, §4)
  ...doc('GET', '/sites/', 'console', 'tenancy', `${S1} Sites`),
  ...doc('GET PUT DELETE', '/sites/:site/', 'console', 'tenancy', `${S1} Sites`),
  ...doc('PATCH', '/sites/:site/', 'console', 'tenancy', 'DECISIONS §4 Sites'),
  ...doc('POST', '/sites/:site/restore/', 'console', 'tenancy', 'DECISIONS §4 DELETE'),
  ...doc('GET', '/sites/config/', 'site', 'tenancy', `${S1} Sites; DECISIONS §2, §4`),
  ...doc('GET POST', '/sites/:site/domains/', 'console', 'tenancy', `${S1} Domains`),
  ...doc('GET PATCH DELETE', '/sites/:site/domains/:domain/', 'console', 'tenancy', `${S1} Domains`),

  // Users, groups, permissions (seed 1; DECISIONS §4)
  ...doc('GET POST', '/users/', 'console', 'tenancy', `${S1} Users`),
  ...doc('GET', '/users/me/', 'console', 'tenancy', 'DECISIONS §4 Users'),
  ...doc('GET PUT DELETE', '/users/:user/', 'console', 'tenancy', `${S1} Users`),
  ...doc('PATCH', '/users/:user/', 'console', 'tenancy', 'DECISIONS §4 Users'),
  ...doc('POST', '/users/:user/restore/', 'console', 'tenancy', 'DECISIONS §4 DELETE'),
  ...doc('GET PATCH', '/users/:user/profile/', 'console', 'tenancy', `${S1} Users; DECISIONS §4 Users`),
  ...doc('GET POST', '/groups/', 'console', 'tenancy', `${S1} Groups`),
  ...doc('GET PUT DELETE', '/groups/:group/', 'console', 'tenancy', `${S1} Groups`),
  ...doc('POST', '/groups/:group/users/', 'console', 'tenancy', 'DECISIONS §4 Groups'),
  ...doc('DELETE', '/groups/:group/users/:user/', 'console', 'tenancy', 'DECISIONS §4 Groups'),
  ...doc('GET', '/permissions/', 'console', 'tenancy', `${S1} Permissions`),

  // Authentication (seed 1; DECISIONS §3)
  ...doc('POST', '/auth/jwt/token/', 'console', 'auth', `${S1} Authentication endpoints`),
  ...doc('POST', '/auth/jwt/token/refresh/', 'console', 'auth', `${S1} Authentication endpoints`),
  ...doc('POST', '/auth/jwt/token/verify/', 'console', 'auth', 'DECISIONS §3 More JWT routes'),
  ...doc('POST', '/auth/jwt/token/blacklist/', 'console', 'auth', 'DECISIONS §3 More JWT routes'),
  ...doc('POST', '/auth/session/login/', 'console', 'auth', 'DECISIONS §3 Session'),
  ...doc('POST', '/auth/session/logout/', 'console', 'auth', 'DECISIONS §3 Session'),
  ...doc('GET', '/auth/social/:provider/login/', 'console', 'auth', 'DECISIONS §3 Social sign-in'),
  ...doc('GET', '/auth/social/:provider/callback/', 'console', 'auth', 'DECISIONS §3 Social sign-in'),

  // Apps and their API keys (DECISIONS §3, §5)
  ...doc('GET POST', '/apps/', 'site', 'tenancy', 'DECISIONS §5'),
  ...doc('GET PUT PATCH DELETE', '/apps/:app/', 'site', 'tenancy', 'DECISIONS §5'),
  ...doc('POST', '/apps/:app/restore/', 'site', 'tenancy', 'DECISIONS §4 DELETE'),
  ...doc('GET POST', '/apps/:app/api-keys/', 'site', 'auth', 'DECISIONS §3 API keys'),
  ...doc('DELETE', '/apps/:app/api-keys/:id/', 'site', 'auth', 'DECISIONS §3 API keys'),

  // Storage (seed 2; DECISIONS §8)
  ...doc('GET', '/apps/:app/storage/buckets/', 'site', 'storage', 'DECISIONS §8 Buckets'),
  ...doc('POST', '/apps/:app/storage/buckets/', 'site', 'storage', `${S2} Storage: buckets`),
  ...doc('GET PATCH', `${bucket}/`, 'site', 'storage', 'DECISIONS §8 Buckets'),
  ...doc('DELETE', `${bucket}/`, 'site', 'storage', `${S2} Storage: buckets`),
  ...doc('GET POST', `${objects}/`, 'site', 'storage', `${S2} Storage: objects`),
  ...doc('POST', `${objects}/upload/`, 'site', 'storage', `${S2} Storage: objects`),
  ...doc('PUT POST GET', `${objects}/*`, 'site', 'storage', `${S2} Storage: objects (by key or uuid)`),
  ...doc('PATCH DELETE', `${objects}/:uuid/`, 'site', 'storage', `${S2} Storage: objects`),
  ...doc('DELETE', `${bucket}/object/*`, 'site', 'storage', `${S2} Storage: objects (delete by path)`),
  ...doc('POST', `${objects}/search/`, 'site', 'storage', `${S2} Legacy search`),
  ...doc('POST', `${objects}/copy/`, 'site', 'storage', `${S2} Copy`),
  ...doc('POST', `${objects}/move/`, 'site', 'storage', `${S2} Move`),
  ...doc('POST', `${objects}/batch-upload/`, 'site', 'storage', `${S2} Batch upload`),
  ...doc('POST', `${objects}/batch-delete/`, 'site', 'storage', `${S2} Batch delete`),
  // An object key may hold slashes, and a router wildcard can only end a path: view and edit
  // are recognised inside the GET wildcard route.
  ...['view', 'edit'].map((mode) => ({
    ...doc('GET', `${objects}/:key/${mode}/`, 'site', 'storage', `${S2} Browser view and edit`)[0],
    servedBy: { method: 'GET' as HttpMethod, path: `${objects}/*` },
  })),

  // Secrets (seed 2; DECISIONS §9)
  ...doc('GET POST', '/secret-types/', 'site', 'secrets', `${S2} Secrets`),
  ...doc('GET PUT DELETE', '/secret-types/:slug/', 'site', 'secrets', `${S2} Secrets`),
  ...doc('GET POST', '/secrets/', 'site', 'secrets', `${S2} Secrets`),
  ...doc('GET PUT DELETE', '/secrets/:key/', 'site', 'secrets', `${S2} Secrets`),
  ...doc('GET', '/secrets/:key/history/', 'site', 'secrets', `${S2} Secrets`),
  ...doc('GET POST', '/tags/', 'site', 'secrets', `${S2} Secrets`),
  ...doc('GET PUT PATCH DELETE', '/tags/:slug/', 'site', 'secrets', `${S2} Secrets`),
  ...doc('GET', '/apps/:app/secrets/types/', 'site', 'secrets', `${S2} Secrets`),
  ...doc('POST', '/apps/:app/secrets/', 'site', 'secrets', `${S2} Secrets`),

  // Analytics (seed 2; DECISIONS §10)
  ...doc('GET POST', `${queries}/`, 'site', 'analytics', `${S2} Analytics queries`),
  ...doc('GET PUT DELETE', `${queries}/:slug/`, 'site', 'analytics', `${S2} Analytics queries`),
  ...doc('POST', `${queries}/:slug/execute/`, 'site', 'analytics', `${S2} Analytics queries`),
  ...doc('GET', `${queries}/:slug/executions/`, 'site', 'analytics', 'DECISIONS §10 execution_key'),

  // Data service (seed 3; DECISIONS §6)
  ...doc('POST', '/apps/:app/datatables/create_schema/', 'site', 'data', 'DECISIONS §6 Creating and changing tables'),
  ...doc('GET', '/apps/:app/datatables/', 'site', 'data', 'DECISIONS §6 Creating and changing tables'),
  ...doc('GET DELETE', '/apps/:app/datatables/:name/', 'site', 'data', 'DECISIONS §6 Creating and changing tables'),
  ...doc('GET POST PATCH DELETE', `${records}/`, 'site', 'data', `${S3} Data service: records`),
  ...doc('POST', `${records}/upsert/`, 'site', 'data', `${S3} Data service: records`),
  ...doc('GET PATCH DELETE', `${records}/:id/`, 'site', 'data', `${S3} Data service: records`),

  // Events and functions (seed 3; DECISIONS §7)
  ...doc('GET', '/cloud/events/', 'console', 'events', `${S3} Events`),
  ...doc('POST', '/cloud/events/:event/subscribe/', 'console', 'events', `${S3} Events`),
  ...doc('POST', '/cloud/events/:event/unsubscribe/', 'console', 'events', `${S3} Events`),
  ...doc('GET', '/apps/:app/events/:event/', 'site', 'events', `${S3} Events`),
  ...doc('GET POST', '/apps/:app/functions/', 'site', 'events', 'DECISIONS §7 Functions'),
  ...doc('GET PUT PATCH DELETE', '/apps/:app/functions/:slug/', 'site', 'events', 'DECISIONS §7 Functions'),
  ...doc('POST', '/apps/:app/functions/:slug/execute/', 'site', 'events', 'DECISIONS §7 Execute'),
  ...doc('GET', '/result/:task_id/', 'site', 'events', 'DECISIONS §7 Execute'),
  ...doc('GET', '/invocations/', 'site', 'events', 'DECISIONS §7 Execute'),
  ...doc('GET', '/invocations/:id/', 'site', 'events', 'DECISIONS §7 Execute'),
];

/**
 * Table routes no document names. Adding a route to the table that is neither documented
 * above nor listed here fails test/unit/route-inventory.test.ts: say why it exists.
 */
export const EXTRA_ROUTES: ExtraRoute[] = [
  {
    method: 'GET',
    path: '/organizations/:org/audit/',
    reason: "An organization's audit trail (seed 1: deletions keep their audit trail; docs/tenancy-organizations.md).",
  },
  {
    method: 'GET',
    path: '/audit/',
    reason: 'The whole audit trail, for staff (docs/tenancy-organizations.md).',
  },
  {
    method: 'PATCH',
    path: '/groups/:group/',
    reason: 'Partial update of a group, beside the documented PUT (as users, organizations and sites accept PATCH).',
  },
];
