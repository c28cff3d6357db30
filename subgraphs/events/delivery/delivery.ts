// Delivery of events to functions, per platform: the relay (outbox → invocations → queue),
// the queue worker (runs one invocation per job), and the sweeps that make delivery
// at-least-once across crashes:
//   - the outbox is read with FOR UPDATE SKIP LOCKED, fanned out into invocation rows (each
//     with an idempotency key `outbox:<row>:<function>`) and deleted in ONE transaction, so an
//     outbox row is either still there or fully turned into invocations;
//   - invocations are enqueued after that commit; a crash in between leaves them `pending`,
//     and the sweep (at start, then every EVENTS_RELAY_INTERVAL_MS for ones older than 30 s)
//     enqueues them again; the job id is the task id, so a job the queue still knows is not
//     added twice, and a job run for an invocation that already finished is counted as a
//     redelivery (`deliveries`) without running the function again.
import type { Platform } from '../../core/context.js';
import { withTransaction } from '../../core/db.js';
import { functionRepository } from '../functions/function.repository.js';
import { invocationRepository as invocations } from '../invocations/invocation.repository.js';
import { runFunction } from '../runtime/runner.js';
import { subscriptionRepository } from '../subscriptions/subscription.repository.js';
import { passesFilter } from './cel-filter.js';
import { outboxRepository } from './outbox.repository.js';
import { openQueue, startQueueWorker, type RunJob, type RunQueue } from './queue.js';

/** Attempts of an event delivery (DECISIONS §7); API runs get one. */
export const EVENT_ATTEMPTS = 3;
const RELAY_BATCH = 100;
const STALE_PENDING_MS = 30_000;

interface Runtime {
  queue: RunQueue | null;
  worker: { close(): Promise<void> } | null;
  timer: NodeJS.Timeout | null;
  relaying: Promise<void> | null;
  again: boolean;
  closed: boolean;
}

const runtimes = new WeakMap<Platform, Runtime>();

function runtime(platform: Platform): Runtime {
  let r = runtimes.get(platform);
  if (!r) runtimes.set(platform, (r = { queue: null, worker: null, timer: null, relaying: null, again: false, closed: false }));
  return r;
}

function queue(platform: Platform): RunQueue {
  const r = runtime(platform);
  if (r.closed) throw new Error('The platform is closing.');
  if (!r.queue) r.queue = openQueue(platform);
  if (!r.worker && platform.config.events.worker === 'inline') startWorker(platform);
  return r.queue;
}

/** Starts this process's queue worker (inline by default, or `npm run start:worker`). */
export function startWorker(platform: Platform): void {
  const r = runtime(platform);
  if (r.worker || r.closed) return;
  r.worker = startQueueWorker(platform, (job) => processJob(platform, job));
}

export async function enqueue(platform: Platform, job: RunJob, taskId: string, attempts: number): Promise<void> {
  await queue(platform).enqueue(job, taskId, attempts);
}

/** One job: one attempt of one invocation. Throws to have the queue retry with backoff. */
export async function processJob(platform: Platform, job: RunJob): Promise<void> {
  const pool = platform.pool;
  const claim = await invocations.claim(pool, job.invocationId);
  if (!claim) return; // finished already: a redelivery, counted by claim()
  const inv = await invocations.findById(pool, job.invocationId);
  if (!inv || inv.site_id !== job.siteId) return;
  const fn = await functionRepository.findById(pool, job.siteId, inv.function_id);
  const outcome = fn
    ? await runFunction(platform, { fn, params: inv.params, user: job.user ?? null })
    : { status: 'failed' as const, result: null, error: 'The function no longer exists.', logs: [] };
  const final = outcome.status === 'succeeded' || !fn || claim.attempts >= claim.max_attempts;
  const deadLetter = final && outcome.status !== 'succeeded' && claim.max_attempts > 1;
  await invocations.finish(pool, inv.id, outcome, final, deadLetter);
  if (deadLetter)
    platform.log.warn({ invocation_id: inv.id, function_id: inv.function_id, site_id: inv.site_id }, 'event delivery dead-lettered');
  if (!final) throw new Error(outcome.error ?? 'attempt failed');
}

/** Turns one batch of outbox rows into invocations; returns them for enqueuing. */
async function relayBatch(platform: Platform): Promise<{ created: { job: RunJob; taskId: string }[]; taken: number }> {
  return withTransaction(platform.pool, async (client) => {
    const rows = await outboxRepository.take(client, RELAY_BATCH);
    const created: { job: RunJob; taskId: string }[] = [];
    for (const row of rows) {
      const fns = await subscriptionRepository.subscribers(client, row.site_id, row.event, row.app_id);
      for (const fn of fns) {
        if (!passesFilter(fn.filter_conditions, row.payload)) continue;
        const inv = await invocations.create(client, {
          siteId: row.site_id,
          functionId: fn.id,
          triggerType: 'event',
          event: row.event,
          params: row.payload,
          maxAttempts: EVENT_ATTEMPTS,
          idempotencyKey: `outbox:${row.id}:${fn.id}`,
        });
        if (inv) created.push({ job: { siteId: row.site_id, invocationId: inv.id }, taskId: inv.task_id });
      }
    }
    if (rows.length)
      await outboxRepository.remove(
        client,
        rows.map((r) => r.id),
      );
    return { created, taken: rows.length };
  });
}

async function relayAll(platform: Platform): Promise<void> {
  for (;;) {
    const { created, taken } = await relayBatch(platform);
    for (const c of created) await enqueue(platform, c.job, c.taskId, EVENT_ATTEMPTS);
    if (taken < RELAY_BATCH) return;
  }
}

/** Relays the outbox now (coalesced: one relay at a time per process, re-run if asked meanwhile). */
export function kickRelay(platform: Platform): Promise<void> {
  const r = runtime(platform);
  if (r.closed) return Promise.resolve();
  if (r.relaying) {
    r.again = true;
    return r.relaying;
  }
  r.relaying = (async () => {
    try {
      do {
        r.again = false;
        await relayAll(platform);
      } while (r.again && !r.closed);
    } catch (e) {
      if (!r.closed) platform.log.error({ err: (e as Error).message }, 'event relay failed; the outbox keeps the events');
    } finally {
      r.relaying = null;
    }
  })();
  return r.relaying;
}

/** Enqueues pending invocations older than `ageMs` again (their job may be lost). */
export async function sweepPending(platform: Platform, ageMs: number): Promise<number> {
  const stale = await invocations.stalePending(platform.pool, ageMs, 500);
  for (const s of stale) await enqueue(platform, { siteId: s.site_id, invocationId: s.id }, s.task_id, s.max_attempts);
  return stale.length;
}

async function anyFunctions(platform: Platform): Promise<boolean> {
  const r = await platform.pool.query(`SELECT EXISTS (SELECT 1 FROM event_functions) AS any`);
  return r.rows[0].any as boolean;
}

/** At start: catch up on what a previous process left behind, then sweep periodically. */
export function startDelivery(platform: Platform): void {
  const r = runtime(platform);
  const tick = async (ageMs: number) => {
    if (r.closed) return;
    try {
      if (!(await anyFunctions(platform))) return;
      if (platform.config.events.worker === 'inline') startWorker(platform);
      await kickRelay(platform);
      await sweepPending(platform, ageMs);
    } catch (e) {
      if (!r.closed) platform.log.warn({ err: (e as Error).message }, 'event sweep failed');
    }
  };
  void tick(0);
  r.timer = setInterval(() => void tick(STALE_PENDING_MS), platform.config.events.relayIntervalMs);
  r.timer.unref();
}

export async function stopDelivery(platform: Platform): Promise<void> {
  const r = runtime(platform);
  r.closed = true;
  if (r.timer) clearInterval(r.timer);
  await r.relaying?.catch(() => undefined);
  await r.worker?.close();
  await r.queue?.close();
  r.worker = null;
  r.queue = null;
}
