// The catalogue of datatables (`public.datatables`): raw pg on the pool or on the schema
// transaction's client. Row counts of the tables themselves are here too (one query per page).
import type pg from 'pg';
import { prepared } from '../../core/db.js';
import type { DataTable, Provider, TableModel } from '../model/table-model.js';
import { Params, qualified } from '../sql.js';

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface CatalogueRow {
  id: number;
  uuid: string;
  siteId: number;
  appId: number;
  name: string;
  physicalName: string;
  provider: Provider;
  description: string;
  schema: Record<string, unknown>;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, uuid, site_id AS "siteId", app_id AS "appId", name, physical_name AS "physicalName", provider,
  description, schema, version, created_at AS "createdAt", updated_at AS "updatedAt"`;

export type NewCatalogueRow = Pick<CatalogueRow, 'siteId' | 'appId' | 'name' | 'physicalName' | 'provider' | 'description' | 'schema'> & {
  createdById: number | null;
};

export const catalogueRepository = {
  async listForApp(db: Queryable, appId: number): Promise<CatalogueRow[]> {
    const { rows } = await db.query<CatalogueRow>(prepared(`SELECT ${COLUMNS} FROM datatables WHERE app_id = $1 ORDER BY name`, [appId]));
    return rows;
  },

  async page(db: Queryable, appId: number, limit: number, offset: number): Promise<{ rows: CatalogueRow[]; total: number }> {
    const { rows } = await db.query<CatalogueRow & { total: number }>(
      prepared(`SELECT ${COLUMNS}, count(*) OVER () AS total FROM datatables WHERE app_id = $1 ORDER BY name LIMIT $2 OFFSET $3`, [
        appId,
        limit,
        offset,
      ]),
    );
    if (rows.length === 0 && offset > 0) {
      const c = await db.query<{ n: number }>(prepared('SELECT count(*)::int AS n FROM datatables WHERE app_id = $1', [appId]));
      return { rows: [], total: c.rows[0].n };
    }
    return { rows, total: rows.length ? Number(rows[0].total) : 0 };
  },

  async find(db: Queryable, appId: number, name: string): Promise<CatalogueRow | null> {
    const { rows } = await db.query<CatalogueRow>(
      prepared(`SELECT ${COLUMNS} FROM datatables WHERE app_id = $1 AND name = $2`, [appId, name]),
    );
    return rows[0] ?? null;
  },

  /** Other tables of the site already using a physical name (two apps' names can meet: `a-b`+`c`, `a`+`b-c`). */
  async physicalTaken(db: Queryable, siteId: number, names: string[]): Promise<string[]> {
    const { rows } = await db.query<{ physical_name: string }>(
      prepared('SELECT physical_name FROM datatables WHERE site_id = $1 AND physical_name = ANY($2::text[])', [siteId, names]),
    );
    return rows.map((r) => r.physical_name);
  },

  async insert(db: Queryable, r: NewCatalogueRow): Promise<CatalogueRow> {
    const { rows } = await db.query<CatalogueRow>(
      prepared(
        `INSERT INTO datatables (site_id, app_id, name, physical_name, provider, description, schema, created_by_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [r.siteId, r.appId, r.name, r.physicalName, r.provider, r.description, JSON.stringify(r.schema), r.createdById],
      ),
    );
    return rows[0];
  },

  /** A migrated table: new definition, version + 1. */
  async update(
    db: Queryable,
    id: number,
    r: Pick<NewCatalogueRow, 'physicalName' | 'provider' | 'description' | 'schema'>,
  ): Promise<CatalogueRow> {
    const { rows } = await db.query<CatalogueRow>(
      prepared(
        `UPDATE datatables SET physical_name = $2, provider = $3, description = $4, schema = $5, version = version + 1, updated_at = now()
         WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, r.physicalName, r.provider, r.description, JSON.stringify(r.schema)],
      ),
    );
    return rows[0];
  },

  async remove(db: Queryable, id: number): Promise<void> {
    await db.query(prepared('DELETE FROM datatables WHERE id = $1', [id]));
  },

  /** Tables per app, for many apps in one query. */
  async countsByApp(db: Queryable, appIds: number[]): Promise<Map<number, number>> {
    const { rows } = await db.query<{ app_id: number; n: number }>(
      prepared('SELECT app_id, count(*)::int AS n FROM datatables WHERE app_id = ANY($1::int[]) GROUP BY app_id', [appIds]),
    );
    return new Map(rows.map((r) => [r.app_id, r.n]));
  },

  /** Exact row counts of several tables in one statement (jsonb: the table's rows in the store). */
  async rowCounts(
    db: Queryable,
    schema: string,
    tables: Pick<DataTable, 'id' | 'provider' | 'physicalName'>[],
  ): Promise<Map<number, number>> {
    if (tables.length === 0) return new Map();
    const params = new Params();
    const parts = tables.map((t, i) => {
      const where = t.provider === 'jsonb' ? ` WHERE "table_id" = ${params.add(t.id)}` : '';
      return `(SELECT count(*) FROM ${qualified(schema, t.physicalName)}${where})::bigint AS "c${i}"`;
    });
    const { rows } = await db.query(`SELECT ${parts.join(', ')}`, params.values);
    return new Map(tables.map((t, i) => [t.id, Number(rows[0][`c${i}`])]));
  },
};

/** A catalogue row with its parsed model as the DataTable every data module works with. */
export function toDataTable(row: CatalogueRow, schemaName: string, model: TableModel): DataTable {
  return {
    id: row.id,
    uuid: row.uuid,
    siteId: row.siteId,
    appId: row.appId,
    name: row.name,
    provider: row.provider,
    schemaName,
    physicalName: row.physicalName,
    version: row.version,
    schema: row.schema,
    model,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
