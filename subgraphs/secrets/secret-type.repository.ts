// SQL of secret types. Bound parameters only; column lists and ORDER BY come from whitelists.
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import type { Tx } from '../core/db.js';
import type { OrderBy } from '../core/listing.js';
import { SYSTEM_TYPES } from './system-types.js';

/** A Prisma transaction or a raw pg client/pool: seeding and tag lookups accept either. */
export type AnyDb = Tx | Pick<pg.Pool, 'query'>;

export async function rawQuery<T>(db: AnyDb, sql: string, params: unknown[]): Promise<T[]> {
  if (typeof (db as pg.Pool).query === 'function') return (await (db as pg.Pool).query(sql, params)).rows as T[];
  return (db as Tx).$queryRawUnsafe<T[]>(sql, ...params);
}

export interface SecretTypeRow {
  id: number;
  slug: string;
  name: string;
  description: string;
  type: 'system' | 'custom';
  sensitivity_level: 'public' | 'private' | 'sensitive';
  schema: Record<string, unknown>;
  created_at: Date;
  modified_at: Date;
}

const COLS = 'id, slug, name, description, type, sensitivity_level, schema, created_at, modified_at';

/** Inserts the missing system types of a site; an existing slug or name is left as it is. */
export async function insertSystemTypes(db: AnyDb, siteId: number): Promise<void> {
  const defs = JSON.stringify(SYSTEM_TYPES);
  await rawQuery(
    db,
    `INSERT INTO secret_types (site_id, slug, name, description, type, sensitivity_level, schema)
     SELECT $1::int, x.slug, x.name, x.description, 'system', x.sensitivity_level, x.schema
     FROM jsonb_to_recordset($2::jsonb) AS x(slug text, name text, description text, sensitivity_level text, schema jsonb)
     ON CONFLICT DO NOTHING`,
    [siteId, defs],
  );
}

export interface TypeFilter {
  siteId: number;
  search?: string;
  type?: string;
  sensitivity?: string;
}

function where(f: TypeFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.siteId];
  const parts = ['site_id = $1'];
  if (f.search) {
    params.push(`%${f.search.replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    parts.push(`(name ILIKE $${params.length} OR description ILIKE $${params.length})`);
  }
  if (f.type) {
    params.push(f.type);
    parts.push(`type = $${params.length}`);
  }
  if (f.sensitivity) {
    params.push(f.sensitivity);
    parts.push(`sensitivity_level = $${params.length}`);
  }
  return { sql: parts.join(' AND '), params };
}

export async function listTypes(pool: pg.Pool, f: TypeFilter, order: OrderBy[], limit: number, offset: number) {
  const w = where(f);
  const orderSql = [...order.map((o) => `${o.column} ${o.desc ? 'DESC' : 'ASC'}`), 'id ASC'].join(', ');
  return queryPage<SecretTypeRow>(pool, {
    select: COLS,
    from: 'FROM secret_types',
    where: w,
    orderBy: orderSql,
    page: { pageSize: limit, offset },
  });
}

export async function findBySlug(pool: pg.Pool, siteId: number, slug: string): Promise<SecretTypeRow | undefined> {
  const { rows } = await pool.query<SecretTypeRow>(`SELECT ${COLS} FROM secret_types WHERE site_id = $1 AND slug = $2`, [siteId, slug]);
  return rows[0];
}

export async function nameTaken(pool: pg.Pool, siteId: number, name: string, exceptId?: number): Promise<boolean> {
  const { rows } = await pool.query('SELECT 1 FROM secret_types WHERE site_id = $1 AND lower(name) = lower($2) AND id <> $3', [
    siteId,
    name,
    exceptId ?? 0,
  ]);
  return rows.length > 0;
}

export async function takenSlugs(pool: pg.Pool, siteId: number, base: string): Promise<string[]> {
  const { rows } = await pool.query<{ slug: string }>(`SELECT slug FROM secret_types WHERE site_id = $1 AND (slug = $2 OR slug LIKE $3)`, [
    siteId,
    base,
    `${base.replace(/[\\%_]/g, (c) => '\\' + c)}-%`,
  ]);
  return rows.map((r) => r.slug);
}

export interface TypeInsert {
  siteId: number;
  slug: string;
  name: string;
  description: string;
  type: string;
  sensitivity: string;
  schema: unknown;
  createdById: number | null;
}

export async function insertType(pool: pg.Pool, t: TypeInsert): Promise<SecretTypeRow> {
  const { rows } = await pool.query<SecretTypeRow>(
    `INSERT INTO secret_types (site_id, slug, name, description, type, sensitivity_level, schema, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) RETURNING ${COLS}`,
    [t.siteId, t.slug, t.name, t.description, t.type, t.sensitivity, JSON.stringify(t.schema), t.createdById],
  );
  return rows[0];
}

export async function updateType(
  pool: pg.Pool,
  id: number,
  set: { name?: string; description?: string; schema?: unknown },
): Promise<SecretTypeRow> {
  const { rows } = await pool.query<SecretTypeRow>(
    `UPDATE secret_types SET name = COALESCE($2, name), description = COALESCE($3, description),
       schema = COALESCE($4::jsonb, schema), modified_at = now()
     WHERE id = $1 RETURNING ${COLS}`,
    [id, set.name ?? null, set.description ?? null, set.schema === undefined ? null : JSON.stringify(set.schema)],
  );
  return rows[0];
}

export async function secretsUsing(pool: pg.Pool, id: number): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM secrets WHERE secret_type_id = $1', [id]);
  return rows[0].n;
}

/** Deletes when no secret uses the type (checked in the same statement); false otherwise. */
export async function deleteUnused(pool: pg.Pool, id: number): Promise<boolean> {
  const { rowCount } = await pool.query(
    'DELETE FROM secret_types WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM secrets WHERE secret_type_id = $1)',
    [id],
  );
  return (rowCount ?? 0) > 0;
}
