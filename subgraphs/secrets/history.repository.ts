// secret_history rows: written inside the secret's own write transaction, read by key and tier.
// The table has no value column by design (seed: values are never recorded).
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import type { Tx } from '../core/db.js';

export type HistoryAction = '+' | '~' | '-';

export interface HistoryInput {
  siteId: number;
  appId: number | null;
  appSlug: string | null;
  key: string;
  secretType: string;
  action: HistoryAction;
  userId: number | null;
  username: string | null;
  changes: Record<string, unknown>;
}

export interface HistoryRow {
  action: HistoryAction;
  username: string | null;
  createdAt: Date;
  key: string;
  appSlug: string | null;
  secretType: string;
  changes: Record<string, unknown>;
}

export const historyRepository = {
  async insert(tx: Tx, h: HistoryInput): Promise<void> {
    await tx.secretHistory.create({ data: { ...h, changes: h.changes as object } });
  },

  /** Newest first; appId null is the site tier. */
  async page(db: Pick<pg.Pool, 'query'>, siteId: number, appId: number | null, key: string, limit: number, offset: number) {
    const tier = appId === null ? 'app_id IS NULL' : 'app_id = $3';
    const params = appId === null ? [siteId, key] : [siteId, key, appId];
    const { rows, count } = await queryPage<Record<string, any>>(db, {
      select: 'action, username, created_at, key, app_slug, secret_type, changes',
      from: 'FROM secret_history',
      where: { sql: `site_id = $1 AND key = $2 AND ${tier}`, params },
      orderBy: 'id DESC',
      page: { pageSize: limit, offset },
    });
    return {
      total: count,
      rows: rows.map((r): HistoryRow => ({
        action: r.action,
        username: r.username,
        createdAt: r.created_at,
        key: r.key,
        appSlug: r.app_slug,
        secretType: r.secret_type,
        changes: r.changes,
      })),
    };
  },
};
