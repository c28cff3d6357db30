// Rows of `secrets` with their type and tags. Reads are raw prepared pg (GET by key is the hot
// path); writes run inside the caller's Prisma transaction so that the history row commits
// with them. Columns holding values are only ever passed to secret-crypto, never logged.
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import { Prisma } from '../../prisma/generated/client.js';
import { prepared, type Tx } from '../core/db.js';
import type { SealedValue } from './secret-crypto.js';
import type { Sensitivity } from './system-types.js';

export interface SecretRow {
  id: number;
  siteId: number;
  appId: number | null;
  appSlug: string | null;
  key: string;
  typeId: number;
  typeSlug: string;
  typeName: string;
  sensitivity: Sensitivity;
  tagIds: number[];
  tagNames: string[];
  tagSlugs: string[];
  stored: SealedValue;
  createdAt: Date;
}

// Tags aggregated once per row (one lateral subquery), ordered by name.
const SECRET_COLUMNS = `s.id, s.site_id, s.app_id, a.slug AS app_slug, s.key, s.secret_type_id, t.slug AS type_slug,
  t.name AS type_name, t.sensitivity_level, s.value_plain, s.ciphertext, s.iv, s.auth_tag, s.key_version, s.created_at,
  COALESCE(tg.ids, '{}') AS tag_ids, COALESCE(tg.names, '{}') AS tag_names, COALESCE(tg.slugs, '{}') AS tag_slugs`;
const SECRET_FROM = `FROM secrets s JOIN secret_types t ON t.id = s.secret_type_id LEFT JOIN apps a ON a.id = s.app_id
LEFT JOIN LATERAL (SELECT array_agg(g.id ORDER BY g.name) AS ids, array_agg(g.name ORDER BY g.name) AS names, array_agg(g.slug ORDER BY g.name) AS slugs
  FROM secret_tag_links l JOIN secret_tags g ON g.id = l.tag_id WHERE l.secret_id = s.id) tg ON TRUE`;
const SELECT = `SELECT ${SECRET_COLUMNS} ${SECRET_FROM}`;

interface RawRow {
  id: number;
  site_id: number;
  app_id: number | null;
  app_slug: string | null;
  key: string;
  secret_type_id: number;
  type_slug: string;
  type_name: string;
  sensitivity_level: Sensitivity;
  value_plain: unknown;
  ciphertext: Buffer | null;
  iv: Buffer | null;
  auth_tag: Buffer | null;
  key_version: number | null;
  created_at: Date;
  tag_ids: number[];
  tag_names: string[];
  tag_slugs: string[];
}

const toRow = (r: RawRow): SecretRow => ({
  id: r.id,
  siteId: r.site_id,
  appId: r.app_id,
  appSlug: r.app_slug,
  key: r.key,
  typeId: r.secret_type_id,
  typeSlug: r.type_slug,
  typeName: r.type_name,
  sensitivity: r.sensitivity_level,
  tagIds: r.tag_ids,
  tagNames: r.tag_names,
  tagSlugs: r.tag_slugs,
  stored: { valuePlain: r.value_plain, ciphertext: r.ciphertext, iv: r.iv, authTag: r.auth_tag, keyVersion: r.key_version },
  createdAt: r.created_at,
});

/** What a secret's view needs (the hot read's row). */
export type ReadRow = Pick<SecretRow, 'siteId' | 'appId' | 'key' | 'typeName' | 'sensitivity' | 'tagNames' | 'tagSlugs' | 'stored'>;

export interface ListFilter {
  siteId: number;
  /** null: site tier; a number: that app's tier; undefined: both tiers (GraphQL). */
  appId?: number | null;
  search?: string;
  key?: string;
  tagSlugs?: string[];
  typeSlug?: string;
  createdBy?: string;
  orderSql: string;
  limit: number;
  offset: number;
}

function where(f: ListFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.siteId];
  const conds = ['s.site_id = $1'];
  const add = (cond: (n: string) => string, v: unknown) => {
    params.push(v);
    conds.push(cond(`$${params.length}`));
  };
  if (f.appId === null) conds.push('s.app_id IS NULL');
  else if (f.appId !== undefined) add((n) => `s.app_id = ${n}`, f.appId);
  // ILIKE with the pattern characters escaped: `search` is a substring, not a pattern.
  if (f.search) add((n) => `s.key ILIKE ${n}`, `%${f.search.replace(/[\\%_]/g, (c) => '\\' + c)}%`);
  if (f.key !== undefined) add((n) => `s.key = ${n}`, f.key);
  if (f.tagSlugs?.length)
    add(
      (n) =>
        `EXISTS (SELECT 1 FROM secret_tag_links l JOIN secret_tags g ON g.id = l.tag_id WHERE l.secret_id = s.id AND g.slug = ANY(${n}::text[]))`,
      f.tagSlugs,
    );
  if (f.typeSlug !== undefined) add((n) => `t.slug = ${n}`, f.typeSlug);
  if (f.createdBy !== undefined) add((n) => `u.username = ${n}`, f.createdBy);
  return { sql: conds.join(' AND '), params };
}

export const secretRepository = {
  /** One secret of a tier: appId null is the site tier. */
  async findByKey(db: Pick<pg.Pool, 'query'>, siteId: number, appId: number | null, key: string): Promise<SecretRow | null> {
    const sql =
      appId === null
        ? `${SELECT} WHERE s.site_id = $1 AND s.app_id IS NULL AND s.key = $2`
        : `${SELECT} WHERE s.site_id = $1 AND s.app_id = $3 AND s.key = $2`;
    const { rows } = await db.query<RawRow>(prepared(sql, appId === null ? [siteId, key] : [siteId, key, appId]));
    return rows[0] ? toRow(rows[0]) : null;
  },

  /** Lookup order of retrieval in one query: the app's tier when `appId` is set, else the site tier. */
  async findFirst(db: Pick<pg.Pool, 'query'>, siteId: number, appId: number | null, key: string): Promise<SecretRow | null> {
    if (appId === null) return secretRepository.findByKey(db, siteId, null, key);
    const sql = `${SELECT} WHERE s.site_id = $1 AND s.key = $2 AND (s.app_id IS NULL OR s.app_id = $3) ORDER BY s.app_id NULLS LAST LIMIT 1`;
    const { rows } = await db.query<RawRow>(prepared(sql, [siteId, key, appId]));
    return rows[0] ? toRow(rows[0]) : null;
  },

  /**
   * The hot read (GET by key): findFirst and the caller's read permission in one round trip,
   * with only what the answer needs (no app, creator or tag ids; tag slugs only for a `tags`
   * filter). The site row is always there, so `permitted` is answered even when the key is
   * not. `access` is an accessPredicate on alias `st` whose placeholders start at $4.
   */
  async findForRead(
    db: Pick<pg.Pool, 'query'>,
    siteId: number,
    appId: number | null,
    key: string,
    access: { sql: string; params: unknown[] },
    withSlugs: boolean,
  ): Promise<{ row: ReadRow | null; permitted: boolean }> {
    const tags = (col: string) =>
      `COALESCE((SELECT array_agg(g.${col} ORDER BY g.name) FROM secret_tag_links l JOIN secret_tags g ON g.id = l.tag_id WHERE l.secret_id = s.id), '{}')`;
    const sql = `SELECT x.*, (${access.sql}) AS permitted FROM sites st LEFT JOIN LATERAL (
      SELECT s.id, s.app_id, s.key, t.name AS type_name, t.sensitivity_level, s.value_plain, s.ciphertext, s.iv, s.auth_tag,
        s.key_version, ${tags('name')} AS tag_names${withSlugs ? `, ${tags('slug')} AS tag_slugs` : ''}
      FROM secrets s JOIN secret_types t ON t.id = s.secret_type_id
      WHERE s.site_id = st.id AND s.key = $2 AND (s.app_id IS NULL OR s.app_id = $3) ORDER BY s.app_id NULLS LAST LIMIT 1) x ON TRUE
      WHERE st.id = $1`;
    const { rows } = await db.query(prepared(sql, [siteId, key, appId, ...access.params]));
    const r = rows[0];
    if (r?.id == null) return { row: null, permitted: r?.permitted === true };
    return {
      row: {
        siteId,
        appId: r.app_id,
        key: r.key,
        typeName: r.type_name,
        sensitivity: r.sensitivity_level,
        tagNames: r.tag_names,
        tagSlugs: r.tag_slugs ?? [],
        stored: { valuePlain: r.value_plain, ciphertext: r.ciphertext, iv: r.iv, authTag: r.auth_tag, keyVersion: r.key_version },
      },
      permitted: r.permitted === true,
    };
  },

  async list(db: Pick<pg.Pool, 'query'>, f: ListFilter): Promise<{ rows: SecretRow[]; count: number }> {
    const w = where(f);
    const { rows, count } = await queryPage<RawRow>(db, {
      select: SECRET_COLUMNS,
      from: `${SECRET_FROM} LEFT JOIN users u ON u.id = s.created_by_id`,
      where: w,
      orderBy: `${f.orderSql}, s.id`,
      page: { pageSize: f.limit, offset: f.offset },
    });
    return { rows: rows.map(toRow), count };
  },

  async insert(
    tx: Tx,
    data: { siteId: number; appId: number | null; key: string; typeId: number; sealed: SealedValue; userId: number | null },
  ): Promise<number> {
    const row = await tx.secret.create({
      data: {
        siteId: data.siteId,
        appId: data.appId,
        key: data.key,
        secretTypeId: data.typeId,
        ...sealedColumns(data.sealed),
        createdById: data.userId,
        modifiedById: data.userId,
      },
      select: { id: true },
    });
    return row.id;
  },

  async replace(tx: Tx, id: number, data: { key: string; typeId: number; sealed: SealedValue; userId: number | null }): Promise<void> {
    await tx.secret.update({
      where: { id },
      data: { key: data.key, secretTypeId: data.typeId, ...sealedColumns(data.sealed), modifiedById: data.userId, modifiedAt: new Date() },
    });
  },

  async setTags(tx: Tx, secretId: number, tagIds: number[]): Promise<void> {
    await tx.secretTagLink.deleteMany({ where: { secretId } });
    if (tagIds.length) await tx.secretTagLink.createMany({ data: tagIds.map((tagId) => ({ secretId, tagId })) });
  },

  async remove(tx: Tx, id: number): Promise<void> {
    await tx.secret.delete({ where: { id } });
  },
};

/** Exactly one of plain / encrypted columns is set (the table's CHECK); the other is cleared. */
function sealedColumns(s: SealedValue) {
  const bytes = (b: Buffer | null) => (b === null ? null : new Uint8Array(b));
  return {
    // An encrypted value leaves value_plain SQL NULL (Prisma.DbNull; `undefined` would keep an
    // old plain value); a public value of JSON null is stored as JSON null, not SQL NULL.
    valuePlain: (s.ciphertext !== null ? Prisma.DbNull : s.valuePlain === null ? Prisma.JsonNull : s.valuePlain) as never,
    ciphertext: bytes(s.ciphertext),
    iv: bytes(s.iv),
    authTag: bytes(s.authTag),
    keyVersion: s.keyVersion,
  };
}
