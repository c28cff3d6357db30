// SQL of invocations (table event_invocations). Reads are bounded to one site; the worker's
// writes address one invocation by id.
import type pg from 'pg';
import { queryPage } from '../../core/paged-query.js';
import type { RunOutcome } from '../runtime/outcome.js';

type Queryable = Pick<pg.Pool, 'query'>;

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
      `INSERT INTO event_invocations (site_id, function_id, trigger_type, event, params, max_attempts, idempotency_key, status, started_at, deliveries, attempts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text, CASE WHEN $8::text = 'running' THEN now() END,
               CASE WHEN $8::text = 'running' THEN 1 ELSE 0 END, CASE WHEN $8::text = 'running' THEN 1 ELSE 0 END)
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
      ],
    );
    return r.rows[0] ?? null;
  },

  /**
   * Claims a pending invocation for one attempt. Null when it has finished already: the
   * delivery is a redelivery and is counted as such.
   */
  async claim(db: Queryable, id: number): Promise<{ attempts: number; max_attempts: number } | null> {
    const r = await db.query<{ attempts: number; max_attempts: number }>(
      `UPDATE event_invocations SET status = 'running', attempts = attempts + 1, deliveries = deliveries + 1,
         started_at = COALESCE(started_at, now())
       WHERE id = $1 AND status IN ('pending', 'running') RETURNING attempts, max_attempts`,
      [id],
    );
    if (r.rows[0]) return r.rows[0];
    await db.query(`UPDATE event_invocations SET deliveries = deliveries + 1 WHERE id = $1`, [id]);
    return null;
  },

  /** Records an attempt's outcome; a failed attempt that will be retried goes back to pending. */
  async finish(db: Queryable, id: number, o: RunOutcome, final: boolean, deadLetter: boolean): Promise<void> {
    const status = o.status !== 'succeeded' && !final ? 'pending' : o.status;
    await db.query(
      `UPDATE event_invocations SET status = $2, result = $3, error = $4, logs = $5, dead_letter = $6,
         finished_at = CASE WHEN $7 THEN now() END,
         duration_ms = CASE WHEN $7 THEN (EXTRACT(EPOCH FROM (now() - started_at)) * 1000)::int END
       WHERE id = $1`,
      [id, status, JSON.stringify(o.result ?? null), o.error, JSON.stringify(o.logs), deadLetter, final || o.status === 'succeeded'],
    );
  },

  async find(db: Queryable, siteId: number, id: number): Promise<InvocationRow | null> {
    const r = await db.query<InvocationRow>(`${SELECT} WHERE i.site_id = $1 AND i.id = $2`, [siteId, id]);
    return r.rows[0] ?? null;
  },

  async findById(db: Queryable, id: number): Promise<InvocationRow | null> {
    const r = await db.query<InvocationRow>(`${SELECT} WHERE i.id = $1`, [id]);
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
