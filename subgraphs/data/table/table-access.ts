// The one way record and query code reaches a datatable: app resolved for the caller
// (resolveApp's rules: 404 unknown/foreign app, 401 anonymous, 403 without view_site), the
// data permission on the site checked (403), the table looked up in the catalogue (404
// `{error, detail}`), all in ONE prepared query; the model is parsed once per table version.
import type { RequestContext } from '../../core/context.js';
import { prepared } from '../../core/db.js';
import { errors } from '../../core/errors.js';
import type { Platform } from '../../core/platform.js';
import { slugOrUuid } from '../../core/slug.js';
import { accessPredicate } from '../../tenancy/tenancy.api.js';
import type { AppRow } from '../../tenancy/tenancy.api.js';
import { dataErrors } from '../data-errors.js';
import { modelFromStored } from '../model/schema-parse.js';
import type { DataTable } from '../model/table-model.js';
import { catalogueRepository, toDataTable, type CatalogueRow } from './catalogue.repository.js';

export type DataPermission = 'data:read' | 'data:write';

export interface ResolvedTable {
  app: AppRow;
  table: DataTable;
}

interface AccessRow extends Omit<AppRow, 'id'> {
  id: number | null;
  canView: boolean;
  canUse: boolean;
  tableId: number | null;
  version: number | null;
}

const MAX_CACHED = 1000;
const models = new WeakMap<Platform, Map<string, DataTable>>();

/** Granted lookups (core/grant-cache.ts): a record read costs one query of its own. */
const GRANTS = 'data-tables';

/** After a schema change in this process: every cached grant may name an old version. */
export const forgetGrants = (platform: Platform): void => platform.invalidation.publish({ kind: 'grants', area: GRANTS });

function cacheOf(platform: Platform): Map<string, DataTable> {
  let m = models.get(platform);
  if (!m) models.set(platform, (m = new Map()));
  return m;
}

/**
 * App, both permissions and the catalogue entry in one statement. The statement text depends
 * only on the principal's kind, the reference kind and the permission: a bounded set, prepared.
 */
async function resolve(ctx: RequestContext, appRef: string, name: string | null, permission: DataPermission): Promise<AccessRow> {
  if (!ctx.site) throw errors.tenantRequired();
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const key = `${ctx.site.id}\u0000${appRef}\u0000${name ?? ''}\u0000${permission}`;
  const hit = ctx.platform.grants.recent<AccessRow>(ctx, GRANTS, key);
  if (hit) return hit;
  const ref = slugOrUuid(appRef);
  const values: unknown[] = [ctx.site.id, 'uuid' in ref ? ref.uuid : ref.slug, name ?? ''];
  const view = accessPredicate(ctx, 'view_site', 'site', 's', values.length + 1);
  values.push(...view.params);
  const use = accessPredicate(ctx, permission, 'site', 's', values.length + 1);
  values.push(...use.params);
  let keyClause = '';
  if (ctx.principal.kind === 'api_key') {
    values.push(ctx.principal.appId);
    keyClause = ` AND a.id = $${values.length}`;
  }
  const text = `SELECT ${view.sql} AS "canView", ${use.sql} AS "canUse",
    a.id, a.uuid, a.slug, a.name, a.description, s.id AS "siteId", s.uuid AS "siteUuid", a.is_active AS "isActive",
    a.is_deleted AS "isDeleted", a.created_at AS "createdAt", a.updated_at AS "updatedAt", d.id AS "tableId", d.version
  FROM sites s
  LEFT JOIN apps a ON a.site_id = s.id AND ${'uuid' in ref ? 'a.uuid = $2::uuid' : 'a.slug = $2'} AND a.is_active AND NOT a.is_deleted${keyClause}
  LEFT JOIN datatables d ON d.app_id = a.id AND d.name = $3
  WHERE s.id = $1 AND s.is_active AND NOT s.is_deleted`;
  const { rows } = await ctx.platform.pool.query<AccessRow>(prepared(text, values));
  const row = rows[0];
  if (!row) throw errors.notFound('App not found.');
  if (!row.canView) throw errors.permissionDenied();
  if (row.id === null) throw errors.notFound('App not found.');
  if (!row.canUse) throw errors.permissionDenied();
  ctx.platform.grants.remember(ctx, GRANTS, key, row);
  return row;
}

const appOf = (row: AccessRow): AppRow => ({
  id: row.id!,
  uuid: row.uuid,
  slug: row.slug,
  name: row.name,
  description: row.description,
  siteId: row.siteId,
  siteUuid: row.siteUuid,
  isActive: row.isActive,
  isDeleted: row.isDeleted,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** The app of an `/api/apps/{app}/…` data route with `permission` on its site checked. */
export async function loadApp(ctx: RequestContext, appRef: string, permission: DataPermission): Promise<AppRow> {
  return appOf(await resolve(ctx, appRef, null, permission));
}

/** A catalogue row as a DataTable, its model parsed once per (id, version) and platform. */
export function tableFromRow(ctx: RequestContext, row: CatalogueRow, schemaName = ctx.site!.schemaName): DataTable {
  const cache = cacheOf(ctx.platform);
  const key = `${row.id}:${row.version}`;
  let table = cache.get(key);
  if (!table) {
    table = toDataTable(row, schemaName, modelFromStored(row.name, row.provider, row.description, row.schema));
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, table);
  }
  return table;
}

export async function loadTable(ctx: RequestContext, appRef: string, name: string, permission: DataPermission): Promise<ResolvedTable> {
  const row = await resolve(ctx, appRef, name, permission);
  if (row.tableId === null) throw dataErrors.tableNotFound(name);
  const app = appOf(row);
  const hit = cacheOf(ctx.platform).get(`${row.tableId}:${row.version}`);
  if (hit) return { app, table: hit };
  const stored = await catalogueRepository.find(ctx.platform.pool, app.id, name);
  if (!stored) throw dataErrors.tableNotFound(name);
  return { app, table: tableFromRow(ctx, stored) };
}
