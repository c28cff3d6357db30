// SQL of invocations (table event_invocations). Reads are bounded to one site; the worker's
// writes address one invocation by id.
import type pg from 'pg';
import { prepared } from '../../core/db.js';
import { queryPage } from '../../core/paged-query.js';
import type { FunctionRow } from '../functions/function.repository.js';
import type { RunOutcome } from '../runtime/outcome.js';

type Queryable = Pick<pg.Pool, 'query'>;

/** One attempt of an invocation as the worker runs it (claimForRun). */
export interface ClaimedRun {
  id: number;
  functionId: number;
  params: unknown;
  /** API runs: the caller as the function's `user` argument; null for event runs. */
  caller: unknown;
  /** Attempts made so far, this one included. */
  attempts: number;
  maxAttempts: number;
  /** The function, or null when it (or its app) no longer exists. */
  fn: FunctionRow | null;
}

type ClaimedRunRow = FunctionRow & {
  inv_id: number;
  inv_function_id: number;
  inv_params: unknown;
  inv_caller: unknown;
  inv_attempts: number;
  inv_max_attempts: number;
};

export type TriggerType = 'api' | 'event' | 'schedule';

export interface InvocationRow {
  id: number;
  site_id: number;
  function_id: number;
  function_name: string;
  function_slug: string;
  app_slug: string;
  trigger_type: TriggerType;
  event: string | null;
  status: 'pending' | 'running' | 'succeeded' | 'failed' | 'timed_out';
  task_id: string;
  idempotency_key: string | null;
  params: unknown;
  result: unknown;
  error: string | null;
  logs: string[];
  attempts: number;
  max_attempts: number;
  deliveries: number;
  dead_letter: boolean;
  started_at: Date | null;
  finished_at: Date | null;
  duration_ms: number | null;
  created_at: Date;
}

export interface NewInvocation {
  siteId: number;
  functionId: number;
  triggerType: TriggerType;
  event: string | null;
  params: unknown;
  maxAttempts: number;
  idempotencyKey?: string | null;
  /** `running` for runs the caller performs at once (sync execute, PRE events). */
  status?: 'pending' | 'running';
  /** API runs: the caller's identity (the function's `user` argument). */
  caller?: unknown;
}

const SELECT = `SELECT i.*, f.name AS function_name, f.slug AS function_slug, a.slug AS app_slug
  FROM event_invocations i JOIN event_functions f ON f.id = i.function_id JOIN apps a ON a.id = f.app_id`;

export interface InvocationFilter {
  siteId: number;
  appId?: number;
  status?: string;
  functionId?: number;
  triggerType?: string;
}

export const invocationRepository = {
  /** Inserts; with an idempotency key already present, returns null (a redelivered event). */
  async create(db: Queryable, n: NewInvocation): Promise<{ id: number; task_id: string } | null> {
    const r = await db.query<{ id: number; task_id: string }>(
      `INSERT INTO event_invocations (site_id, function_id, trigger_type, event, params, max_attempts, idempotency_key, status, started_at, deliveries, attempts, caller)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text, CASE WHEN $8::text = 'running' THEN now() END,
               CASE WHEN $8::text = 'running' THEN 1 ELSE 0 END, CASE WHEN $8::text = 'running' THEN 1 ELSE 0 END, $9::jsonb)
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, task_id::text`,
      [
        n.siteId,
        n.functionId,
        n.triggerType,
        n.event,
        JSON.stringify(n.params ?? null),
        n.maxAttempts,
        n.idempotencyKey ?? null,
        n.status ?? 'pending',
        n.caller == null ? null : JSON.stringify(n.caller),
      ],
    );
    return r.rows[0] ?? null;
  },

  /**
   * Inserts the invocations of relayed outbox rows in one statement (`params` is the outbox
   * row's payload, read in SQL), in the order given. An idempotency key already present is
   * skipped (the row was relayed before); the others come back with their ids and task ids.
   */
  async createFromOutbox(
    db: Queryable,
    items: readonly { outboxId: string; functionId: number }[],
    maxAttempts: number,
  ): Promise<{ id: number; site_id: number; task_id: string }[]> {
    if (items.length === 0) return [];
    const r = await db.query<{ id: number; site_id: number; task_id: string }>(
      prepared(
        `INSERT INTO event_invocations (site_id, function_id, trigger_type, event, params, max_attempts, idempotency_key)
       SELECT o.site_id, x.function_id, 'event', o.event, o.payload, $3, 'outbox:' || o.id || ':' || x.function_id
         FROM unnest($1::bigint[], $2::int[]) WITH ORDINALITY AS x(outbox_id, function_id, ord)
         JOIN event_outbox o ON o.id = x.outbox_id
        ORDER BY x.ord
       ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, site_id, task_id::text`,
        [items.map((i) => i.outboxId), items.map((i) => i.functionId), maxAttempts],
      ),
    );
    return r.rows;
  },

  /**
   * Claims an invocation for one attempt and reads what the run needs, in one statement: the
   * invocation's params and attempt counts, and its function (null when the function or its
   * app is gone). Null when the invocation has finished already (or is unknown): the delivery
   * is a redelivery, counted as such in `deliveries`.
   */
  async claimForRun(db: Queryable, siteId: number, id: number): Promise<ClaimedRun | null> {
    const r = await db.query<ClaimedRunRow>(
      prepared(
        `WITH c AS (
         UPDATE event_invocations SET status = 'running', attempts = attempts + 1, deliveries = deliveries + 1,
           started_at = COALESCE(started_at, now())
         WHERE id = $1 AND site_id = $2 AND status IN ('pending', 'running')
         RETURNING id, site_id, function_id, params, caller, attempts, max_attempts)
       SELECT c.id AS inv_id, c.function_id AS inv_function_id, c.params AS inv_params, c.caller AS inv_caller, c.attempts AS inv_attempts,
              c.max_attempts AS inv_max_attempts, f.*, a.uuid::text AS app_uuid, a.slug AS app_slug, a.name AS app_name
         FROM c LEFT JOIN event_functions f ON f.id = c.function_id AND f.site_id = c.site_id
                LEFT JOIN apps a ON a.id = f.app_id AND NOT a.is_deleted`,
        [id, siteId],
      ),
    );
    const row = r.rows[0];
    if (!row) {
      await db.query(`UPDATE event_invocations SET deliveries = deliveries + 1 WHERE id = $1 AND site_id = $2`, [id, siteId]);
      return null;
    }
    const { inv_id, inv_function_id, inv_params, inv_caller, inv_attempts, inv_max_attempts, ...fn } = row;
    return {
      id: inv_id,
      functionId: inv_function_id,
      params: inv_params,
      caller: inv_caller,
      attempts: inv_attempts,
      maxAttempts: inv_max_attempts,
      fn: fn.id != null && fn.app_uuid != null ? (fn as FunctionRow) : null,
    };
  },

  /** Records an attempt's outcome; a failed attempt that will be retried goes back to pending. */
  async finish(db: Queryable, id: number, o: RunOutcome, final: boolean, deadLetter: boolean): Promise<void> {
    const status = o.status !== 'succeeded' && !final ? 'pending' : o.status;
    await db.query(
      prepared(
        `UPDATE event_invocations SET status = $2, result = $3, error = $4, logs = $5, dead_letter = $6,
           finished_at = CASE WHEN $7 THEN now() END,
           duration_ms = CASE WHEN $7 THEN (EXTRACT(EPOCH FROM (now() - started_at)) * 1000)::int END
         WHERE id = $1`,
        [id, status, JSON.stringify(o.result ?? null), o.error, JSON.stringify(o.logs), deadLetter, final || o.status === 'succeeded'],
      ),
    );
  },

  async find(db: Queryable, siteId: number, id: number): Promise<InvocationRow | null> {
    const r = await db.query<InvocationRow>(`${SELECT} WHERE i.site_id = $1 AND i.id = $2`, [siteId, id]);
    return r.rows[0] ?? null;
  },

  async findByTask(db: Queryable, siteId: number, taskId: string): Promise<InvocationRow | null> {
    const r = await db.query<InvocationRow>(`${SELECT} WHERE i.site_id = $1 AND i.task_id = $2::uuid`, [siteId, taskId]);
    return r.rows[0] ?? null;
  },

  async list(db: Queryable, f: InvocationFilter, pageSize: number, offset: number) {
    const params: unknown[] = [f.siteId];
    const where = ['i.site_id = $1'];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (f.appId !== undefined) add('f.app_id = ?', f.appId);
    if (f.status !== undefined) add('i.status = ?', f.status);
    if (f.functionId !== undefined) add('i.function_id = ?', f.functionId);
    if (f.triggerType !== undefined) add('i.trigger_type = ?', f.triggerType);
    return queryPage<InvocationRow>(db, {
      select: 'i.*, f.name AS function_name, f.slug AS function_slug, a.slug AS app_slug',
      from: 'FROM event_invocations i JOIN event_functions f ON f.id = i.function_id JOIN apps a ON a.id = f.app_id',
      where: { sql: where.join(' AND '), params },
      orderBy: 'i.id DESC',
      page: { pageSize, offset },
    });
  },

  /** Pending invocations older than `ageMs` (their job may have been lost with a crash). */
  async stalePending(
    db: Queryable,
    ageMs: number,
    limit: number,
  ): Promise<{ id: number; site_id: number; task_id: string; max_attempts: number }[]> {
    const r = await db.query(
      `SELECT id, site_id, task_id::text, max_attempts FROM event_invocations
       WHERE status = 'pending' AND created_at < now() - ($1::int * interval '1 millisecond') ORDER BY id LIMIT $2`,
      [ageMs, limit],
    );
    return r.rows;
  },
};
