// secret_data_keys: per-site data keys, each stored only wrapped by a master key. Raw pg so
// the same calls run on the pool (hot reads) or on a client inside a rotation transaction.
import type pg from 'pg';
import { prepared } from '../core/db.js';

export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

export interface DataKeyRow {
  id: number;
  siteId: number;
  version: number;
  wrappedKey: Buffer;
  masterKeyId: string;
  retiredAt: Date | null;
}

const COLUMNS = 'id, site_id AS "siteId", version, wrapped_key AS "wrappedKey", master_key_id AS "masterKeyId", retired_at AS "retiredAt"';

export const dataKeyRepository = {
  async find(db: Queryable, siteId: number, version: number): Promise<DataKeyRow | null> {
    const { rows } = await db.query(
      prepared(`SELECT ${COLUMNS} FROM secret_data_keys WHERE site_id = $1 AND version = $2`, [siteId, version]),
    );
    return (rows[0] as DataKeyRow) ?? null;
  },

  /** The key new values are sealed with: the highest version not retired. */
  async current(db: Queryable, siteId: number): Promise<DataKeyRow | null> {
    const { rows } = await db.query(
      prepared(`SELECT ${COLUMNS} FROM secret_data_keys WHERE site_id = $1 AND retired_at IS NULL ORDER BY version DESC LIMIT 1`, [siteId]),
    );
    return (rows[0] as DataKeyRow) ?? null;
  },

  async listForSite(db: Queryable, siteId: number): Promise<DataKeyRow[]> {
    const { rows } = await db.query(`SELECT ${COLUMNS} FROM secret_data_keys WHERE site_id = $1 ORDER BY version`, [siteId]);
    return rows as DataKeyRow[];
  },

  async maxVersion(db: Queryable, siteId: number): Promise<number> {
    const { rows } = await db.query('SELECT COALESCE(max(version), 0)::int AS v FROM secret_data_keys WHERE site_id = $1', [siteId]);
    return rows[0].v as number;
  },

  /** Inserts a version; false when another process created the same (site, version) first. */
  async insert(db: Queryable, siteId: number, version: number, wrappedKey: Buffer, masterKeyId: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO secret_data_keys (site_id, version, wrapped_key, master_key_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (site_id, version) DO NOTHING`,
      [siteId, version, wrappedKey, masterKeyId],
    );
    return rowCount === 1;
  },

  /** Replaces the wrapping only if it is still the one read (a concurrent rotation may have won). */
  async rewrap(db: Queryable, id: number, fromMasterKeyId: string, wrappedKey: Buffer, masterKeyId: string): Promise<void> {
    await db.query('UPDATE secret_data_keys SET wrapped_key = $3, master_key_id = $4 WHERE id = $1 AND master_key_id = $2', [
      id,
      fromMasterKeyId,
      wrappedKey,
      masterKeyId,
    ]);
  },

  /** Retires every older version of the site that no secret still uses; returns the count. */
  async retireUnused(db: Queryable, siteId: number, belowVersion: number): Promise<number> {
    const { rowCount } = await db.query(
      `UPDATE secret_data_keys k SET retired_at = now()
        WHERE k.site_id = $1 AND k.version < $2 AND k.retired_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM secrets s WHERE s.site_id = k.site_id AND s.key_version = k.version)`,
      [siteId, belowVersion],
    );
    return rowCount ?? 0;
  },

  async siteIds(db: Queryable): Promise<number[]> {
    const { rows } = await db.query(
      `SELECT site_id FROM secret_data_keys UNION SELECT site_id FROM secrets WHERE ciphertext IS NOT NULL ORDER BY 1`,
    );
    return rows.map((r) => r.site_id as number);
  },
};
