// SQL of secret tags. Bound parameters only.
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import { rawQuery, type AnyDb } from './secret-type.repository.js';

export interface TagRow {
  id: number;
  name: string;
  slug: string;
  description: string;
  color: string;
  created_at: Date;
  modified_at: Date;
}

const COLS = 'id, name, slug, description, color, created_at, modified_at';
const like = (s: string) => s.replace(/[\\%_]/g, (c) => '\\' + c);

export async function listTags(pool: pg.Pool, siteId: number, search: string | undefined, orderSql: string, limit: number, offset: number) {
  const params: unknown[] = [siteId];
  let cond = 'site_id = $1';
  if (search) {
    params.push(`%${like(search)}%`);
    cond += ` AND (name ILIKE $2 OR description ILIKE $2)`;
  }
  return queryPage<TagRow>(pool, {
    select: COLS,
    from: 'FROM secret_tags',
    where: { sql: cond, params },
    orderBy: `${orderSql}, id`,
    page: { pageSize: limit, offset },
  });
}

export async function findBySlug(pool: pg.Pool, siteId: number, slug: string): Promise<TagRow | undefined> {
  const { rows } = await pool.query<TagRow>(`SELECT ${COLS} FROM secret_tags WHERE site_id = $1 AND slug = $2`, [siteId, slug]);
  return rows[0];
}

export async function nameTaken(pool: pg.Pool, siteId: number, name: string, exceptId = 0): Promise<boolean> {
  const { rows } = await pool.query('SELECT 1 FROM secret_tags WHERE site_id = $1 AND name = $2 AND id <> $3', [siteId, name, exceptId]);
  return rows.length > 0;
}

export async function takenSlugs(pool: pg.Pool, siteId: number, base: string): Promise<string[]> {
  const { rows } = await pool.query<{ slug: string }>('SELECT slug FROM secret_tags WHERE site_id = $1 AND (slug = $2 OR slug LIKE $3)', [
    siteId,
    base,
    `${like(base)}-%`,
  ]);
  return rows.map((r) => r.slug);
}

export async function insertTag(
  pool: pg.Pool,
  t: { siteId: number; slug: string; name: string; description: string; color: string },
): Promise<TagRow> {
  const { rows } = await pool.query<TagRow>(
    `INSERT INTO secret_tags (site_id, slug, name, description, color) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLS}`,
    [t.siteId, t.slug, t.name, t.description, t.color],
  );
  return rows[0];
}

export async function updateTag(pool: pg.Pool, id: number, set: { name?: string; description?: string; color?: string }): Promise<TagRow> {
  const { rows } = await pool.query<TagRow>(
    `UPDATE secret_tags SET name = COALESCE($2, name), description = COALESCE($3, description), color = COALESCE($4, color), modified_at = now()
     WHERE id = $1 RETURNING ${COLS}`,
    [id, set.name ?? null, set.description ?? null, set.color ?? null],
  );
  return rows[0];
}

/** Deletes the tag; its secret_tag_links go with it (ON DELETE CASCADE), the secrets stay. */
export async function deleteTag(pool: pg.Pool, id: number): Promise<void> {
  await pool.query('DELETE FROM secret_tags WHERE id = $1', [id]);
}

/** Tags of a site whose name or slug is in `refs` (Prisma transaction or pg client). */
export async function findByRefs(db: AnyDb, siteId: number, refs: string[]): Promise<{ id: number; name: string; slug: string }[]> {
  return rawQuery(
    db,
    `SELECT id, name, slug FROM secret_tags
     WHERE site_id = $1::int AND (name IN (SELECT jsonb_array_elements_text($2::jsonb)) OR slug IN (SELECT jsonb_array_elements_text($2::jsonb)))
     ORDER BY name`,
    [siteId, JSON.stringify(refs)],
  );
}
