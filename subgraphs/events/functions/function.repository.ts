// SQL of functions (table event_functions). Every query is bounded to one site.
import type pg from 'pg';
import { queryPage } from '../../core/paged-query.js';

type Queryable = Pick<pg.Pool, 'query'>;

export type ExecutionMode = 'app' | 'proxy' | 'system';

export interface FunctionRow {
  id: number;
  site_id: number;
  app_id: number;
  app_uuid: string;
  app_slug: string;
  app_name: string;
  name: string;
  slug: string;
  description: string;
  execution_mode: ExecutionMode;
  code: string;
  webhook_url: string | null;
  headers: Record<string, string>;
  webhook_secret: string | null;
  system_name: string | null;
  timeout_seconds: number;
  filter_conditions: string | null;
  is_active: boolean;
  is_public: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface FunctionWrite {
  name: string;
  slug: string;
  description: string;
  execution_mode: ExecutionMode;
  code: string;
  webhook_url: string | null;
  headers: Record<string, string>;
  system_name: string | null;
  timeout_seconds: number;
  filter_conditions: string | null;
  is_active: boolean;
  is_public: boolean;
}

const SELECT = `SELECT f.*, a.uuid::text AS app_uuid, a.slug AS app_slug, a.name AS app_name
  FROM event_functions f JOIN apps a ON a.id = f.app_id AND NOT a.is_deleted`;

export const functionRepository = {
  async list(db: Queryable, siteId: number, appId: number, limit: number, offset: number) {
    return queryPage<FunctionRow>(db, {
      from: 'FROM event_functions f JOIN apps a ON a.id = f.app_id AND NOT a.is_deleted',
      select: 'f.*, a.uuid::text AS app_uuid, a.slug AS app_slug, a.name AS app_name',
      where: { sql: 'f.site_id = $1 AND f.app_id = $2', params: [siteId, appId] },
      orderBy: 'f.id',
      page: { pageSize: limit, offset },
    });
  },

  async findBySlug(db: Queryable, siteId: number, appId: number, slug: string): Promise<FunctionRow | null> {
    const r = await db.query<FunctionRow>(`${SELECT} WHERE f.site_id = $1 AND f.app_id = $2 AND f.slug = $3`, [siteId, appId, slug]);
    return r.rows[0] ?? null;
  },

  async findById(db: Queryable, siteId: number, id: number): Promise<FunctionRow | null> {
    const r = await db.query<FunctionRow>(`${SELECT} WHERE f.site_id = $1 AND f.id = $2`, [siteId, id]);
    return r.rows[0] ?? null;
  },

  async findByIds(db: Queryable, siteId: number, ids: number[]): Promise<FunctionRow[]> {
    const r = await db.query<FunctionRow>(`${SELECT} WHERE f.site_id = $1 AND f.id = ANY($2::int[])`, [siteId, ids]);
    return r.rows;
  },

  async slugsLike(db: Queryable, appId: number, base: string): Promise<string[]> {
    const r = await db.query<{ slug: string }>(`SELECT slug FROM event_functions WHERE app_id = $1 AND (slug = $2 OR slug LIKE $3)`, [
      appId,
      base,
      `${base.replace(/[\\%_]/g, (c) => '\\' + c)}-%`,
    ]);
    return r.rows.map((x) => x.slug);
  },

  async insert(db: Queryable, siteId: number, appId: number, f: FunctionWrite, secret: string | null): Promise<number> {
    const r = await db.query<{ id: number }>(
      `INSERT INTO event_functions (site_id, app_id, name, slug, description, execution_mode, code, webhook_url, headers,
         webhook_secret, system_name, timeout_seconds, filter_conditions, is_active, is_public)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15) RETURNING id`,
      [
        siteId,
        appId,
        f.name,
        f.slug,
        f.description,
        f.execution_mode,
        f.code,
        f.webhook_url,
        JSON.stringify(f.headers),
        secret,
        f.system_name,
        f.timeout_seconds,
        f.filter_conditions,
        f.is_active,
        f.is_public,
      ],
    );
    return r.rows[0].id;
  },

  async update(db: Queryable, siteId: number, id: number, f: FunctionWrite, secret: string | null): Promise<void> {
    await db.query(
      `UPDATE event_functions SET name = $3, slug = $4, description = $5, execution_mode = $6, code = $7, webhook_url = $8,
         headers = $9, webhook_secret = $10, system_name = $11, timeout_seconds = $12, filter_conditions = $13,
         is_active = $14, is_public = $15, updated_at = now()
       WHERE site_id = $1 AND id = $2`,
      [
        siteId,
        id,
        f.name,
        f.slug,
        f.description,
        f.execution_mode,
        f.code,
        f.webhook_url,
        JSON.stringify(f.headers),
        secret,
        f.system_name,
        f.timeout_seconds,
        f.filter_conditions,
        f.is_active,
        f.is_public,
      ],
    );
  },

  async remove(db: Queryable, siteId: number, id: number): Promise<void> {
    await db.query(`DELETE FROM event_functions WHERE site_id = $1 AND id = $2`, [siteId, id]);
  },
};
