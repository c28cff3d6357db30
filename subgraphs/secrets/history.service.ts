// Secret history (seed: key, app, type, tags, user, time and action; never values). Records are
// written by secret.service inside its write transaction; this file reads and shapes them.
import type { RequestContext } from '../core/context.js';
import type { Tx } from '../core/db.js';
import { errors } from '../core/errors.js';
import { historyRepository, type HistoryInput } from './history.repository.js';

export const HISTORY_DEFAULT_LIMIT = 10;
export const HISTORY_MAX_LIMIT = 100;

/** One change of a key (attribute names and non-secret attributes; never a value). */
export interface HistoryEntry {
  action: string;
  username: string | null;
  at: Date;
  key: string;
  app: string | null;
  secretType: string;
  changes: Record<string, unknown>;
}

/** A window of a tier's history of a key, newest first. */
export interface HistoryList {
  key: string;
  app: string | null;
  entries: HistoryEntry[];
  total: number;
  limit: number;
  offset: number;
}

/** Which window of the history: `limit` clamped to 1…HISTORY_MAX_LIMIT, `offset` ≥ 0. */
export interface HistoryWindow {
  app?: string;
  limit?: number;
  offset?: number;
}

/** Only attribute names and non-secret attributes may be recorded: this guard keeps it so. */
export function recordHistory(tx: Tx, h: HistoryInput): Promise<void> {
  if ('value' in h.changes) throw new Error('secret history must not record values');
  return historyRepository.insert(tx, h);
}

function nonNegative(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw errors.field(name, `"${value}" is not a whole number.`);
  return value;
}

/** A tier's history of `key`, newest first (the tier and access are checked by the caller). */
export async function historyPage(
  ctx: RequestContext,
  siteId: number,
  tier: { appId: number | null; appSlug: string | null },
  key: string,
  input: Pick<HistoryWindow, 'limit' | 'offset'>,
): Promise<HistoryList> {
  const limit = Math.min(Math.max(nonNegative(input.limit, 'limit', HISTORY_DEFAULT_LIMIT), 1), HISTORY_MAX_LIMIT);
  const offset = Math.min(nonNegative(input.offset, 'offset', 0), 1_000_000_000);
  const { total, rows } = await historyRepository.page(ctx.platform.pool, siteId, tier.appId, key, limit, offset);
  return {
    key,
    app: tier.appSlug,
    entries: rows.map((r) => ({
      action: r.action,
      username: r.username,
      at: r.createdAt,
      key: r.key,
      app: r.appSlug,
      secretType: r.secretType,
      changes: r.changes,
    })),
    total,
    limit,
    offset,
  };
}
