// Datatables of an app (docs/data-service.md "Tables"): create or migrate from a Data
// Package, list, read with an exact row count, delete. Services take ctx first and check
// access first (data:read to read, data:write to change).
import type pg from 'pg';
import type { RequestContext } from '../../core/context.js';
import type { FieldErrors } from '../../core/errors.js';
import { pageRequest, type ListInput, type PageRequest } from '../../core/listing.js';
import type { AppRow } from '../../tenancy/tenancy.api.js';
import { dataErrors } from '../data-errors.js';
import { modelFromStored, normalizeSchema } from '../model/schema-parse.js';
import type { DataTable, TableModel } from '../model/table-model.js';
import { qualified } from '../sql.js';
import { catalogueRepository, type CatalogueRow } from './catalogue.repository.js';
import { runSteps } from './ddl-runner.js';
import { applyPackage, inTransaction } from './schema-apply.js';
import { dropObjectSql, jsonbObjects } from './table-ddl.js';
import { forgetGrants, loadApp, loadTable, tableFromRow } from './table-access.js';
import { constraintName, constraintScope, SCHEMA_LOCK } from './table-names.js';

export const TABLE_PAGE = { pageSize: 100, max: 1000 };

/** The table view of the REST API (snake_case). */
export interface TableView {
  name: string;
  physical_name: string;
  provider: string;
  description: string;
  schema: Record<string, unknown>;
  row_count: number;
  created_at: string;
  updated_at: string;
}

export function toTableView(t: DataTable, rowCount: number): TableView {
  return {
    name: t.name,
    physical_name: t.physicalName,
    provider: t.provider,
    description: t.model.description,
    schema: t.schema,
    row_count: rowCount,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

function schemaOf(ctx: RequestContext): string {
  return ctx.site!.schemaName;
}

/** Exact row counts of `tables` (one statement). */
export const rowCounts = (ctx: RequestContext, tables: DataTable[]) =>
  catalogueRepository.rowCounts(ctx.platform.pool, schemaOf(ctx), tables);

/** REST views of `tables` with their exact row counts (one statement). */
export async function tableViews(ctx: RequestContext, tables: DataTable[]): Promise<TableView[]> {
  const counts = await rowCounts(ctx, tables);
  return tables.map((t) => toTableView(t, counts.get(t.id) ?? 0));
}

/** What create_schema did: tables created, tables migrated, and all of them as they are now. */
export interface SchemaApplied {
  created: number;
  migrated: number;
  tables: DataTable[];
}

/** Create or migrate the tables of a Data Package (`allowDataLoss`: changes that drop data). */
export async function createSchema(
  ctx: RequestContext,
  appRef: string,
  body: unknown,
  opts: { allowDataLoss?: boolean | null } = {},
): Promise<SchemaApplied> {
  const app = await loadApp(ctx, appRef, 'data:write');
  const applied = await applyPackage(ctx, app, schemaOf(ctx), body, opts.allowDataLoss ?? false);
  forgetGrants(ctx.platform);
  const tables = applied.map((a) => tableFromRow(ctx, a.row));
  const created = applied.filter((a) => a.created).length;
  return { created, migrated: applied.length - created, tables };
}

/** The app's tables, a page at a time (default 100, max 1000). */
export async function listTables(
  ctx: RequestContext,
  appRef: string,
  input: ListInput,
): Promise<{ app: AppRow; page: PageRequest; count: number; tables: DataTable[] }> {
  const app = await loadApp(ctx, appRef, 'data:read');
  const page = pageRequest(input, TABLE_PAGE);
  const { rows, total } = await catalogueRepository.page(ctx.platform.pool, app.id, page.pageSize, page.offset);
  return { app, page, count: total, tables: rows.map((r) => tableFromRow(ctx, r)) };
}

export async function getTable(ctx: RequestContext, appRef: string, name: string): Promise<TableView> {
  const { table } = await loadTable(ctx, appRef, name, 'data:read');
  return (await tableViews(ctx, [table]))[0];
}

/** The app's other tables whose foreign keys point at `name`. */
function referencing(rows: CatalogueRow[], name: string): { row: CatalogueRow; model: TableModel }[] {
  return rows
    .filter((r) => r.name !== name)
    .map((r) => ({ row: r, model: modelFromStored(r.name, r.provider, r.description, r.schema) }))
    .filter((x) => x.model.foreignKeys.some((fk) => fk.reference.resource === name));
}

/**
 * Drops a table (jsonb: its rows in the store). While other tables reference it: 400 naming
 * them, unless `force=true`, which drops those foreign keys and removes them from the
 * referencing tables' schemas (their versions move on).
 */
/** Drops a table; answers its catalogue row as it was. */
export async function deleteTable(
  ctx: RequestContext,
  appRef: string,
  name: string,
  opts: { force?: boolean | null } = {},
): Promise<CatalogueRow> {
  const app: AppRow = await loadApp(ctx, appRef, 'data:write');
  const force = opts.force ?? false;
  const schema = schemaOf(ctx);
  const dropped = await inTransaction(ctx, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [SCHEMA_LOCK, app.id]);
    const rows = await catalogueRepository.listForApp(client, app.id);
    const row = rows.find((r) => r.name === name);
    if (!row) throw dataErrors.tableNotFound(name);
    const users = referencing(rows, name);
    if (users.length && !force) {
      const errs: FieldErrors = {
        name: [`Referenced by ${users.map((u) => `"${u.row.name}"`).join(', ')}; pass force=true to drop those foreign keys too.`],
      };
      throw dataErrors.validation(errs, 'Datatable is referenced by other tables.');
    }
    for (const u of users) await dropReferences(client, schema, u, name);
    const t = qualified(schema, row.physicalName);
    if (row.provider === 'jsonb') {
      const model = modelFromStored(row.name, row.provider, row.description, row.schema);
      const idx = jsonbObjects(constraintScope({ provider: 'jsonb', physicalName: row.physicalName, id: row.id }), row.id, model);
      await runSteps(client, [
        ...idx.map((o) => ({ sql: dropObjectSql(schema, row.physicalName, o), at: 'name' })),
        { sql: `DELETE FROM ${t} WHERE "table_id" = ${Number(row.id)}`, at: 'name' },
      ]);
    } else {
      await runSteps(client, [{ sql: `DROP TABLE IF EXISTS ${t}`, at: 'name' }]);
    }
    await catalogueRepository.remove(client, row.id);
    return row;
  });
  forgetGrants(ctx.platform);
  return dropped;
}

/** force: the referencing table loses its foreign keys to `name` (constraints, indexes, stored schema). */
async function dropReferences(
  client: pg.PoolClient,
  schema: string,
  u: { row: CatalogueRow; model: TableModel },
  name: string,
): Promise<void> {
  const gone = u.model.foreignKeys.filter((fk) => fk.reference.resource === name);
  const drop = (kind: 'fk' | 'ix', fields: string[]) => ({
    sql: dropObjectSql(schema, u.row.physicalName, {
      name: constraintName(kind, u.row.physicalName, fields),
      kind: kind === 'fk' ? 'constraint' : 'index',
      fields,
      def: '',
    }),
    at: 'name',
  });
  await runSteps(
    client,
    gone.flatMap((fk) => [drop('fk', fk.fields), drop('ix', fk.fields)]),
  );
  const model: TableModel = { ...u.model, foreignKeys: u.model.foreignKeys.filter((fk) => !gone.includes(fk)) };
  await catalogueRepository.update(client, u.row.id, {
    physicalName: u.row.physicalName,
    provider: u.row.provider,
    description: u.row.description,
    schema: normalizeSchema(model),
  });
}

/** Tables per app for the tenancy module's app views (one query for many apps). */
export const tableCounts = (ctx: RequestContext, appIds: number[]) => catalogueRepository.countsByApp(ctx.platform.pool, appIds);
