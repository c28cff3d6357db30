// SQL of the event outbox (table event_outbox): rows written by the writer's transaction,
// taken by the relay with FOR UPDATE SKIP LOCKED so several processes can relay at once.
import type pg from 'pg';
import { prepared } from '../../core/db.js';

type Queryable = Pick<pg.Pool, 'query'>;

export interface OutboxEntry {
  event: string;
  payload: unknown;
}

export interface OutboxRow {
  id: string;
  site_id: number;
  app_id: number | null;
  event: string;
  payload: Record<string, unknown>;
}

/** Runs one statement with bound parameters on the writer's transaction (pg client or Prisma tx). */
export type Exec = (sql: string, params: unknown[]) => Promise<unknown>;

// $2 is the app's slug for record events (only that app's functions), null for user events.
const WRITE_SQL = `WITH app AS (SELECT (SELECT id FROM apps WHERE site_id = $1 AND slug = $2::text AND NOT is_deleted) AS id)
  INSERT INTO event_outbox (site_id, app_id, event, payload)
  SELECT $1, app.id, e.event, e.payload FROM app, jsonb_to_recordset($3::jsonb) AS e(event text, payload jsonb)
  WHERE EXISTS (SELECT 1 FROM event_subscriptions s JOIN event_functions f ON f.id = s.function_id
                WHERE s.site_id = $1 AND s.event = e.event AND f.is_active AND ($2::text IS NULL OR f.app_id = app.id))`;

export const outboxRepository = {
  /**
   * Writes the entries that have at least one active subscriber in the site (of the app, for
   * record events), in one statement inside the caller's transaction.
   */
  write(exec: Exec, siteId: number, appSlug: string | null, entries: readonly OutboxEntry[]): Promise<unknown> {
    return exec(WRITE_SQL, [siteId, appSlug, JSON.stringify(entries)]);
  },

  async take(db: Queryable, limit: number): Promise<OutboxRow[]> {
    const r = await db.query<OutboxRow>(
      prepared(`SELECT id::text, site_id, app_id, event, payload FROM event_outbox ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, [limit]),
    );
    return r.rows;
  },

  async remove(db: Queryable, ids: string[]): Promise<void> {
    await db.query(prepared(`DELETE FROM event_outbox WHERE id = ANY($1::bigint[])`, [ids]));
  },
};
