// Saved analytics queries of an app (seed 2 "Analytics queries", DECISIONS §10): list, read,
// create, update, delete. Services take ctx first and check access first; a template is
// parsed and checked by its engine's grammar whenever it is saved.
import type { RequestContext, SiteRef } from '../../core/context.js';
import { mapDbError } from '../../core/db-errors.js';
import { errors } from '../../core/errors.js';
import { pageRequest, type ListInput, type ListResult } from '../../core/listing.js';
import { slugify, withUniqueSlug } from '../../core/slug.js';
import { connectionSecretType } from '../../secrets/secrets.api.js';
import { can, resolveApp, type AppRow } from '../../tenancy/tenancy.api.js';
import { analyticsErrors } from '../analytics-errors.js';
import type { Engine } from '../engines/connector.js';
import { loadPgParser } from '../template/pg-check.js';
import { loadMysqlParser } from '../template/mysql-check.js';
import { prepareQuery } from '../template/prepare.js';
import { parseTemplate } from '../template/template.js';
import { parseQueryInput, type QueryInput } from './query-input.js';
import { queryRepository, type QueryFields, type QueryRow } from './query.repository.js';

export type AnalyticsPermission = 'analytics:read' | 'analytics:execute' | 'analytics:write';

/** A saved query as the services answer it; each transport renders its own view. */
export interface AnalyticsQuery {
  id: string;
  name: string;
  slug: string;
  description: string;
  /** The slug of the query's app. */
  appSlug: string;
  connectionType: 'external' | 'internal';
  secretKey: string | null;
  queryText: string;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
}

export const toAnalyticsQuery = (r: QueryRow, app: Pick<AppRow, 'slug'>): AnalyticsQuery => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  description: r.description,
  appSlug: app.slug,
  connectionType: r.connectionType,
  secretKey: r.secretKey,
  queryText: r.queryText,
  tags: r.tags,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export interface AppScope {
  app: AppRow;
  site: SiteRef;
}

/** The app of the path (404 unknown or foreign) and the permission on its site (403). */
export async function loadAppFor(ctx: RequestContext, appRef: string, permission: AnalyticsPermission): Promise<AppScope> {
  const app = await resolveApp(ctx, appRef);
  if (!(await can(ctx, permission, 'site', app.siteId))) throw errors.permissionDenied();
  return { app, site: ctx.site! };
}

export async function loadQuery(ctx: RequestContext, appRef: string, slug: string, permission: AnalyticsPermission) {
  const scope = await loadAppFor(ctx, appRef, permission);
  const row = await queryRepository.find(ctx.platform.pool, scope.site.id, scope.app.id, slug);
  if (!row) throw analyticsErrors.queryNotFound(slug);
  return { ...scope, row };
}

const ENGINES: Record<string, Engine> = {
  'analytics-postgresql': 'postgresql',
  'analytics-mysql': 'mysql',
  'analytics-redshift': 'redshift',
  'analytics-elasticsearch': 'elasticsearch',
  'analytics-clickhouse': 'clickhouse',
};

/** The engine a connection secret's type names; SecretResolutionError for any other type. */
export function engineOfType(typeSlug: string): Engine {
  const engine = ENGINES[typeSlug];
  if (!engine)
    throw analyticsErrors.secretResolution('Unsupported analytics datasource.', { secret_type: typeSlug, expected: Object.keys(ENGINES) });
  return engine;
}

/** The engine of a query: internal, or the type of its connection secret (which must exist). */
export async function engineOf(ctx: RequestContext, appId: number, f: Pick<QueryFields, 'connectionType' | 'secretKey'>): Promise<Engine> {
  if (f.connectionType === 'internal') return 'internal';
  const type = await connectionSecretType(ctx, appId, f.secretKey!);
  if (!type) throw analyticsErrors.secretResolution('Secret not found.', { secret_key: f.secretKey });
  return engineOfType(type);
}

/** Parses the template and checks it with the engine's grammar (internal: schema references too). */
async function checkFields(ctx: RequestContext, scope: AppScope, f: QueryFields): Promise<void> {
  const engine = await engineOf(ctx, scope.app.id, f);
  const t = parseTemplate(f.queryText);
  await loadPgParser();
  if (engine === 'mysql') await loadMysqlParser();
  if (engine === 'internal' && t.placeholders.some((p) => p.kind === 'secret')) {
    throw analyticsErrors.validation({ query_text: ['Secret references are allowed in external queries only.'] });
  }
  prepareQuery(engine, t, engine === 'internal' ? { schema: scope.site.schemaName, tables: new Map() } : undefined);
}

/** The saved queries of an app, a page of them (REST and GraphQL render their own envelope). */
export async function listQueries(ctx: RequestContext, appRef: string, input: ListInput): Promise<ListResult<AnalyticsQuery>> {
  const scope = await loadAppFor(ctx, appRef, 'analytics:read');
  const page = pageRequest(input);
  const { rows, total } = await queryRepository.page(ctx.platform.pool, scope.site.id, scope.app.id, page.pageSize, page.offset);
  return { items: rows.map((r) => toAnalyticsQuery(r, scope.app)), count: total, page };
}

export async function getQuery(ctx: RequestContext, appRef: string, slug: string): Promise<AnalyticsQuery> {
  const { row, app } = await loadQuery(ctx, appRef, slug, 'analytics:read');
  return toAnalyticsQuery(row, app);
}

const userIdOf = (ctx: RequestContext): number | null => (ctx.principal.kind === 'user' ? ctx.principal.userId : null);

export async function createQuery(ctx: RequestContext, appRef: string, input: QueryInput): Promise<AnalyticsQuery> {
  const scope = await loadAppFor(ctx, appRef, 'analytics:write');
  const fields = parseQueryInput(input, null);
  await checkFields(ctx, scope, fields);
  const pool = ctx.platform.pool;
  const row = await withUniqueSlug({
    base: slugify(fields.name, 'query'),
    taken: (base) => queryRepository.slugsLike(pool, scope.app.id, base),
    insert: (slug) => queryRepository.insert(pool, scope.site.id, scope.app.id, slug, fields, userIdOf(ctx)),
  }).catch((e) => {
    throw mapDbError(e);
  });
  return toAnalyticsQuery(row, scope.app);
}

export async function updateQuery(ctx: RequestContext, appRef: string, slug: string, input: QueryInput): Promise<AnalyticsQuery> {
  const { row, ...scope } = await loadQuery(ctx, appRef, slug, 'analytics:write');
  const fields = parseQueryInput(input, row);
  await checkFields(ctx, scope, fields);
  const updated = await queryRepository.update(ctx.platform.pool, scope.site.id, row.id, fields).catch((e) => {
    throw mapDbError(e);
  });
  return toAnalyticsQuery(updated, scope.app);
}

/** Deletes a saved query; answers it as it was. */
export async function deleteQuery(ctx: RequestContext, appRef: string, slug: string): Promise<AnalyticsQuery> {
  const { row, site, app } = await loadQuery(ctx, appRef, slug, 'analytics:write');
  await queryRepository.remove(ctx.platform.pool, site.id, row.id);
  return toAnalyticsQuery(row, app);
}
