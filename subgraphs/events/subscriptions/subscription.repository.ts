// SQL of subscriptions (table event_subscriptions), bounded to one site.
import type pg from 'pg';
import { prepared } from '../../core/db.js';
import type { FunctionRow } from '../functions/function.repository.js';

type Queryable = Pick<pg.Pool, 'query'>;

export interface SubscriptionRow {
  id: number;
  event: string;
  function_id: number;
  function_name: string;
  function_slug: string;
  filter_conditions: string | null;
  app_id: number;
  app_name: string;
  app_slug: string;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `SELECT s.id, s.event, s.function_id, f.name AS function_name, f.slug AS function_slug, f.filter_conditions,
    a.id AS app_id, a.name AS app_name, a.slug AS app_slug, s.created_at, s.updated_at
  FROM event_subscriptions s JOIN event_functions f ON f.id = s.function_id JOIN apps a ON a.id = f.app_id AND NOT a.is_deleted`;

export const subscriptionRepository = {
  async insert(db: Queryable, siteId: number, event: string, functionId: number): Promise<number> {
    const r = await db.query<{ id: number }>(
      `INSERT INTO event_subscriptions (site_id, event, function_id) VALUES ($1, $2, $3) RETURNING id`,
      [siteId, event, functionId],
    );
    return r.rows[0].id;
  },

  async find(db: Queryable, siteId: number, id: number): Promise<SubscriptionRow | null> {
    const r = await db.query<SubscriptionRow>(`${SELECT} WHERE s.site_id = $1 AND s.id = $2`, [siteId, id]);
    return r.rows[0] ?? null;
  },

  async remove(db: Queryable, siteId: number, event: string, functionId: number): Promise<boolean> {
    const r = await db.query(`DELETE FROM event_subscriptions WHERE site_id = $1 AND event = $2 AND function_id = $3`, [
      siteId,
      event,
      functionId,
    ]);
    return (r.rowCount ?? 0) > 0;
  },

  async ofApp(db: Queryable, siteId: number, appId: number, event: string): Promise<SubscriptionRow[]> {
    const r = await db.query<SubscriptionRow>(`${SELECT} WHERE s.site_id = $1 AND f.app_id = $2 AND s.event = $3 ORDER BY s.id`, [
      siteId,
      appId,
      event,
    ]);
    return r.rows;
  },

  /**
   * The active subscribers of several (site, event, app) keys at once (the relay's batch): one
   * row per key and function, with the function's id and CEL filter; `app_id` null = any app
   * of the site (user events). `key` is the index of the key in the arrays given.
   */
  async subscribersOfKeys(
    db: Queryable,
    keys: readonly { siteId: number; event: string; appId: number | null }[],
  ): Promise<{ key: number; function_id: number; filter_conditions: string | null }[]> {
    if (keys.length === 0) return [];
    const r = await db.query<{ key: number; function_id: number; filter_conditions: string | null }>(
      prepared(
        `SELECT (k.ord - 1)::int AS key, f.id AS function_id, f.filter_conditions
         FROM unnest($1::int[], $2::text[], $3::int[]) WITH ORDINALITY AS k(site_id, event, app_id, ord)
         JOIN event_subscriptions s ON s.site_id = k.site_id AND s.event = k.event
         JOIN event_functions f ON f.id = s.function_id AND f.is_active AND (k.app_id IS NULL OR f.app_id = k.app_id)
         JOIN apps a ON a.id = f.app_id AND NOT a.is_deleted
        ORDER BY k.ord, f.id`,
        [keys.map((k) => k.siteId), keys.map((k) => k.event), keys.map((k) => k.appId)],
      ),
    );
    return r.rows;
  },

  /** Active subscribed functions for an event in a site (of one app, for record events). */
  async subscribers(db: Queryable, siteId: number, event: string, appId: number | null): Promise<FunctionRow[]> {
    const r = await db.query<FunctionRow>(
      `SELECT f.*, a.uuid::text AS app_uuid, a.slug AS app_slug, a.name AS app_name
       FROM event_subscriptions s JOIN event_functions f ON f.id = s.function_id JOIN apps a ON a.id = f.app_id AND NOT a.is_deleted
       WHERE s.site_id = $1 AND s.event = $2 AND f.is_active AND ($3::int IS NULL OR f.app_id = $3) ORDER BY f.id`,
      [siteId, event, appId],
    );
    return r.rows;
  },
};
