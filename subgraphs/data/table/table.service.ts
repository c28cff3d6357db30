// Datatables of an app (docs/data-service.md "Tables"): create or migrate from a Data
// Package, list, read with an exact row count, delete. Services take ctx first and check
// access first (data:read to read, data:write to change).
import type pg from 'pg';
import type { RequestContext } from '../../core/context.js';
import type { FieldErrors } from '../../core/errors.js';
import { parseBool, parsePage, type Query } from '../../core/listing.js';
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

async function views(ctx: RequestContext, tables: DataTable[]): Promise<TableView[]> {
  const counts = await rowCounts(ctx, tables);
  return tables.map((t) => toTableView(t, counts.get(t.id) ?? 0));
}

/** POST create_schema: 201 when a table was created, 200 when all existed (migrated). */
export async function createSchema(ctx: RequestContext, appRef: string, body: unknown, query: Query = {}) {
  const app = await loadApp(ctx, appRef, 'data:write');
  const allow = parseBool(query, 'allow_data_loss') ?? false;
  const applied = await applyPackage(ctx, app, schemaOf(ctx), body, allow);
  forgetGrants(ctx.platform);
  const tables = applied.map((a) => tableFromRow(ctx, a.row));
  const created = applied.filter((a) => a.created).length;
  const migrated = applied.length - created;
  const message = [
    created && `Created ${created} table${created === 1 ? '' : 's'}.`,
    migrated && `Updated ${migrated} table${migrated === 1 ? '' : 's'}.`,
  ]
    .filter(Boolean)
    .join(' ');
  return { status: created > 0 ? 201 : 200, body: { status: 'success', message, data: await views(ctx, tables) }, tables };
}

/** The app's tables, a page at a time: `{data, total, page, page_size}` (default 100, max 1000). */
export async function listTables(ctx: RequestContext, appRef: string, query: Query) {
  const app = await loadApp(ctx, appRef, 'data:read');
  const page = parsePage(query, TABLE_PAGE);
  const { rows, total } = await catalogueRepository.page(ctx.platform.pool, app.id, page.pageSize, page.offset);
  const tables = rows.map((r) => tableFromRow(ctx, r));
  return { app, page, total, tables };
}

export async function listTablesRest(ctx: RequestContext, appRef: string, query: Query) {
  const r = await listTables(ctx, appRef, query);
  return { data: await views(ctx, r.tables), total: r.total, page: r.page.page, page_size: r.page.pageSize };
}

export async function getTable(ctx: RequestContext, appRef: string, name: string): Promise<TableView> {
  const { table } = await loadTable(ctx, appRef, name, 'data:read');
  return (await views(ctx, [table]))[0];
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
export async function deleteTable(ctx: RequestContext, appRef: string, name: string, query: Query = {}): Promise<void> {
  const app: AppRow = await loadApp(ctx, appRef, 'data:write');
  const force = parseBool(query, 'force') ?? false;
  const schema = schemaOf(ctx);
  await inTransaction(ctx, async (client) => {
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
  });
  forgetGrants(ctx.platform);
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
