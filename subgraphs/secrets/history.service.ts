// Secret history (seed: key, app, type, tags, user, time and action; never values). Records are
// written by secret.service inside its write transaction; this file reads and shapes them.
import type { RequestContext } from '../core/context.js';
import type { Tx } from '../core/db.js';
import { errors } from '../core/errors.js';
import { param, type Query } from '../core/listing.js';
import { historyRepository, type HistoryInput } from './history.repository.js';

export const HISTORY_DEFAULT_LIMIT = 10;
export const HISTORY_MAX_LIMIT = 100;

export interface HistoryView {
  action: string;
  user: string | null;
  timestamp: string;
  key: string;
  app: string | null;
  secret_type: string;
  changes: Record<string, unknown>;
}

export interface HistoryPage {
  key: string;
  app: string | null;
  results: HistoryView[];
  total_count: number;
  limit: number;
  offset: number;
  has_next: boolean;
  has_previous: boolean;
}

/** Only attribute names and non-secret attributes may be recorded: this guard keeps it so. */
export function recordHistory(tx: Tx, h: HistoryInput): Promise<void> {
  if ('value' in h.changes) throw new Error('secret history must not record values');
  return historyRepository.insert(tx, h);
}

function nonNegativeInt(query: Query, name: string, fallback: number): number {
  const raw = param(query, name)?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw errors.field(name, `"${raw}" is not a whole number.`);
  return Number(raw);
}

/** A tier's history of `key`, newest first (the tier and access are checked by the caller). */
export async function historyPage(
  ctx: RequestContext,
  siteId: number,
  tier: { appId: number | null; appSlug: string | null },
  key: string,
  query: Query,
): Promise<HistoryPage> {
  const limit = Math.min(Math.max(nonNegativeInt(query, 'limit', HISTORY_DEFAULT_LIMIT), 1), HISTORY_MAX_LIMIT);
  const offset = Math.min(nonNegativeInt(query, 'offset', 0), 1_000_000_000);
  const { total, rows } = await historyRepository.page(ctx.platform.pool, siteId, tier.appId, key, limit, offset);
  return {
    key,
    app: tier.appSlug,
    results: rows.map((r) => ({
      action: r.action,
      user: r.username,
      timestamp: r.createdAt.toISOString(),
      key: r.key,
      app: r.appSlug,
      secret_type: r.secretType,
      changes: r.changes,
    })),
    total_count: total,
    limit,
    offset,
    has_next: offset + rows.length < total,
    has_previous: offset > 0,
  };
}
