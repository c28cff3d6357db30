// Datatables as the GraphQL API shows them (App.tables, datatable, createSchema, deleteTable):
// the table services of table.service.ts with camelCase views. Row counts are computed
// only when asked for, in one statement per page of tables.
import type { RequestContext } from '../../core/context.js';
import { prepared } from '../../core/db.js';
import { isAppError } from '../../core/errors.js';
import { pageRequest, type ListInput } from '../../core/listing.js';
import { requireApp } from '../../tenancy/tenancy.api.js';
import type { DataTable } from '../model/table-model.js';
import { catalogueRepository } from './catalogue.repository.js';
import { loadTable, tableFromRow } from './table-access.js';
import { createSchema, deleteTable, TABLE_PAGE } from './table.service.js';

export interface DataTableView {
  name: string;
  physicalName: string;
  provider: 'flat_table' | 'jsonb';
  description: string;
  schema: Record<string, unknown>;
  rowCount: () => Promise<number>;
  createdAt: Date;
  updatedAt: Date;
}

/** Views of tables of one site schema; the first `rowCount` asked counts all of them at once. */
function toViews(ctx: RequestContext, schemaName: string, tables: DataTable[]): DataTableView[] {
  let counts: Promise<Map<number, number>> | null = null;
  const countsOnce = () => (counts ??= catalogueRepository.rowCounts(ctx.platform.pool, schemaName, tables));
  return tables.map((t) => ({
    name: t.name,
    physicalName: t.physicalName,
    provider: t.provider,
    description: t.model.description,
    schema: t.schema,
    rowCount: async () => (await countsOnce()).get(t.id) ?? 0,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  }));
}

async function schemaNameOf(ctx: RequestContext, siteId: number): Promise<string> {
  if (ctx.site?.id === siteId) return ctx.site.schemaName;
  const { rows } = await ctx.platform.pool.query<{ schema_name: string }>(
    prepared('SELECT schema_name FROM sites WHERE id = $1', [siteId]),
  );
  return rows[0].schema_name;
}

/**
 * The datatables of app `appId` (UUID), on any host the app is visible from: 404 when the
 * app is not visible to the caller, 403 without `data:read` on its site.
 */
export async function listTables(ctx: RequestContext, appId: string, input: ListInput) {
  const app = await requireApp(ctx, appId, 'data:read');
  const page = pageRequest(input, { pageSize: 20, max: TABLE_PAGE.max });
  const schemaName = await schemaNameOf(ctx, app.siteId);
  const { rows, total } = await catalogueRepository.page(ctx.platform.pool, app.id, page.pageSize, page.offset);
  return {
    page,
    count: total,
    items: toViews(
      ctx,
      schemaName,
      rows.map((r) => tableFromRow(ctx, r, schemaName)),
    ),
  };
}

/** One table, or null when the app has none of that name (an unknown app is still an error). */
export async function findTable(ctx: RequestContext, appRef: string, name: string): Promise<DataTableView | null> {
  try {
    const { table } = await loadTable(ctx, appRef, name, 'data:read');
    return toViews(ctx, table.schemaName, [table])[0];
  } catch (e) {
    if (isAppError(e) && e.status === 404 && e.message === 'Datatable not found.') return null;
    throw e;
  }
}

export async function createSchemaGql(
  ctx: RequestContext,
  appRef: string,
  pkg: unknown,
  allowDataLoss?: boolean | null,
): Promise<DataTableView[]> {
  const r = await createSchema(ctx, appRef, pkg, { allowDataLoss });
  return toViews(ctx, ctx.site!.schemaName, r.tables);
}

/** The dropped table as it was; its `rowCount` is 0 (the rows are gone with it). */
export async function deleteTableGql(ctx: RequestContext, appRef: string, name: string, force?: boolean | null): Promise<DataTableView> {
  const row = await deleteTable(ctx, appRef, name, { force });
  const [view] = toViews(ctx, ctx.site!.schemaName, [tableFromRow(ctx, row)]);
  return { ...view, rowCount: async () => 0 };
}
