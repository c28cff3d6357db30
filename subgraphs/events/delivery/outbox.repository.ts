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

/**
 * Runs one statement with bound parameters on the writer's transaction (pg client or Prisma tx)
 * and answers its rows.
 */
export type Exec = (sql: string, params: unknown[]) => Promise<Array<Record<string, unknown>>>;

// $2 is the app's slug for record events (only that app's functions), null for user events.
// The event types of $3 (a JSON array) that have at least one active subscriber.
const SUBSCRIBED_SQL = `SELECT DISTINCT s.event FROM event_subscriptions s JOIN event_functions f ON f.id = s.function_id
  WHERE s.site_id = $1 AND s.event IN (SELECT jsonb_array_elements_text($3::jsonb)) AND f.is_active
    AND ($2::text IS NULL OR f.app_id = (SELECT id FROM apps WHERE site_id = $1 AND slug = $2::text AND NOT is_deleted))`;

// The entries of $3, of subscribed types only (SUBSCRIBED_SQL chose them in this transaction; a
// subscriber gone since leaves a row the relay deletes without an invocation).
const WRITE_SQL = `WITH written AS (
    INSERT INTO event_outbox (site_id, app_id, event, payload)
    SELECT $1, (SELECT id FROM apps WHERE site_id = $1 AND slug = $2::text AND NOT is_deleted), e.event, e.payload
      FROM jsonb_to_recordset($3::jsonb) AS e(event text, payload jsonb)
    RETURNING 1)
  SELECT count(*)::int AS n FROM written`;

export const outboxRepository = {
  /**
   * Writes the entries that have at least one active subscriber in the site (of the app, for
   * record events) inside the caller's transaction; answers how many rows it wrote. A first,
   * small statement asks which of the entries' event types have subscribers, so a write nobody
   * subscribed to (the common case) costs one short query, not the serialised records.
   */
  async write(exec: Exec, siteId: number, appSlug: string | null, entries: readonly OutboxEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    const types = [...new Set(entries.map((e) => e.event))];
    const subscribed = new Set((await exec(SUBSCRIBED_SQL, [siteId, appSlug, JSON.stringify(types)])).map((r) => r.event as string));
    if (subscribed.size === 0) return 0;
    const wanted = subscribed.size === types.length ? entries : entries.filter((e) => subscribed.has(e.event));
    const [row] = await exec(WRITE_SQL, [siteId, appSlug, JSON.stringify(wanted)]);
    return Number(row?.n ?? 0);
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
