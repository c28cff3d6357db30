// Rows of `analytics_queries` and `analytics_executions`: raw prepared pg, always filtered by
// site and app. The only code of the module that touches the platform tables.
import type pg from 'pg';
import { prepared } from '../../core/db.js';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export type ConnectionType = 'external' | 'internal';

export interface QueryRow {
  id: string;
  siteId: number;
  appId: number;
  name: string;
  slug: string;
  description: string;
  connectionType: ConnectionType;
  secretKey: string | null;
  queryText: string;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, site_id AS "siteId", app_id AS "appId", name, slug, description, connection_type AS "connectionType",
  secret_key AS "secretKey", query_text AS "queryText", tags, created_at AS "createdAt", updated_at AS "updatedAt"`;

export type QueryFields = Pick<QueryRow, 'name' | 'description' | 'connectionType' | 'secretKey' | 'queryText' | 'tags'>;

export const queryRepository = {
  async page(db: Queryable, siteId: number, appId: number, limit: number, offset: number): Promise<{ rows: QueryRow[]; total: number }> {
    const { rows } = await db.query<QueryRow & { total: number }>(
      prepared(
        `SELECT ${COLUMNS}, count(*) OVER () AS total FROM analytics_queries WHERE site_id = $1 AND app_id = $2
         ORDER BY name, slug LIMIT $3 OFFSET $4`,
        [siteId, appId, limit, offset],
      ),
    );
    if (rows.length === 0 && offset > 0) {
      const c = await db.query<{ n: number }>(
        prepared('SELECT count(*)::int AS n FROM analytics_queries WHERE site_id = $1 AND app_id = $2', [siteId, appId]),
      );
      return { rows: [], total: c.rows[0].n };
    }
    return { rows: rows.map(({ total: _t, ...r }) => r), total: rows.length ? Number(rows[0].total) : 0 };
  },

  async find(db: Queryable, siteId: number, appId: number, slug: string): Promise<QueryRow | null> {
    const { rows } = await db.query<QueryRow>(
      prepared(`SELECT ${COLUMNS} FROM analytics_queries WHERE site_id = $1 AND app_id = $2 AND slug = $3`, [siteId, appId, slug]),
    );
    return rows[0] ?? null;
  },

  async slugsLike(db: Queryable, appId: number, base: string): Promise<string[]> {
    const { rows } = await db.query<{ slug: string }>(
      prepared(`SELECT slug FROM analytics_queries WHERE app_id = $1 AND (slug = $2 OR slug LIKE $3)`, [appId, base, `${base}-%`]),
    );
    return rows.map((r) => r.slug);
  },

  async insert(db: Queryable, siteId: number, appId: number, slug: string, f: QueryFields, userId: number | null): Promise<QueryRow> {
    const { rows } = await db.query<QueryRow>(
      prepared(
        `INSERT INTO analytics_queries (site_id, app_id, slug, name, description, connection_type, secret_key, query_text, tags, created_by_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
        [siteId, appId, slug, f.name, f.description, f.connectionType, f.secretKey, f.queryText, f.tags, userId],
      ),
    );
    return rows[0];
  },

  async update(db: Queryable, siteId: number, id: string, f: QueryFields): Promise<QueryRow> {
    const { rows } = await db.query<QueryRow>(
      prepared(
        `UPDATE analytics_queries SET name = $3, description = $4, connection_type = $5, secret_key = $6, query_text = $7, tags = $8,
           updated_at = now() WHERE site_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [siteId, id, f.name, f.description, f.connectionType, f.secretKey, f.queryText, f.tags],
      ),
    );
    return rows[0];
  },

  async remove(db: Queryable, siteId: number, id: string): Promise<boolean> {
    const r = await db.query(prepared('DELETE FROM analytics_queries WHERE site_id = $1 AND id = $2', [siteId, id]));
    return (r.rowCount ?? 0) > 0;
  },
};

export interface ExecutionRow {
  executionKey: string;
  queryId: string;
  userId: number | null;
  engine: string;
  status: 'success' | 'error';
  errorCode: string | null;
  rowCount: number;
  truncated: boolean;
  durationMs: number;
  createdAt: Date;
}

const EXEC_COLUMNS = `execution_key AS "executionKey", query_id AS "queryId", user_id AS "userId", engine, status,
  error_code AS "errorCode", row_count AS "rowCount", truncated, duration_ms AS "durationMs", created_at AS "createdAt"`;

export const executionRepository = {
  async insert(db: Queryable, siteId: number, e: Omit<ExecutionRow, 'createdAt'>): Promise<void> {
    await db.query(
      prepared(
        `INSERT INTO analytics_executions (execution_key, site_id, query_id, user_id, engine, status, error_code, row_count, truncated, duration_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [e.executionKey, siteId, e.queryId, e.userId, e.engine, e.status, e.errorCode, e.rowCount, e.truncated, e.durationMs],
      ),
    );
  },

  async page(
    db: Queryable,
    siteId: number,
    queryId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: ExecutionRow[]; total: number }> {
    const { rows } = await db.query<ExecutionRow & { total: number }>(
      prepared(
        `SELECT ${EXEC_COLUMNS}, count(*) OVER () AS total FROM analytics_executions WHERE site_id = $1 AND query_id = $2
         ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [siteId, queryId, limit, offset],
      ),
    );
    if (rows.length === 0 && offset > 0) {
      const c = await db.query<{ n: number }>(
        prepared('SELECT count(*)::int AS n FROM analytics_executions WHERE site_id = $1 AND query_id = $2', [siteId, queryId]),
      );
      return { rows: [], total: c.rows[0].n };
    }
    return { rows: rows.map(({ total: _t, ...r }) => r), total: rows.length ? Number(rows[0].total) : 0 };
  },
};
