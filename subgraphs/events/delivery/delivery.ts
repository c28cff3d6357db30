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
  // One statement: the attempt is claimed (running, attempts + 1, deliveries + 1) and the
  // invocation's params and function are read with it.
  const run = await invocations.claimForRun(pool, job.siteId, job.invocationId);
  if (!run) return; // finished already: a redelivery, counted by claimForRun()
  const { fn } = run;
  const outcome = fn
    ? await runFunction(platform, { fn, params: run.params, user: run.caller ?? job.user ?? null })
    : { status: 'failed' as const, result: null, error: 'The function no longer exists.', logs: [] };
  const final = outcome.status === 'succeeded' || !fn || run.attempts >= run.maxAttempts;
  const deadLetter = final && outcome.status !== 'succeeded' && run.maxAttempts > 1;
  await invocations.finish(pool, run.id, outcome, final, deadLetter);
  if (deadLetter)
    platform.log.warn({ invocation_id: run.id, function_id: run.functionId, site_id: job.siteId }, 'event delivery dead-lettered');
  if (!final) throw new Error(outcome.error ?? 'attempt failed');
}

type NewJob = { job: RunJob; taskId: string; attempts: number };

/**
 * Turns one batch of outbox rows into invocations; returns them for enqueuing. A constant
 * number of statements whatever the batch holds: take the rows, read the subscribers of
 * all of them, insert every invocation, delete the rows.
 */
async function relayBatch(platform: Platform): Promise<{ created: NewJob[]; taken: number }> {
  return withTransaction(platform.pool, async (client) => {
    // On the PostgreSQL queue, no WAL flush wait for this commit: the jobs that name these
    // invocations come after it in the same log, and the worker's claim (synchronous, before
    // the function runs) flushes it. A database crash keeps a prefix of the log: it loses
    // nothing, or the jobs, or the jobs and this commit (the outbox rows are then relayed
    // again), never an invocation a surviving job names. On Redis the jobs live outside that
    // log, so this commit is synchronous.
    if (!platform.config.redisUrl) await client.query('SET LOCAL synchronous_commit = off');
    const rows = await outboxRepository.take(client, RELAY_BATCH);
    if (rows.length === 0) return { created: [], taken: 0 };
    // Subscribers per distinct (site, event, app) of the batch.
    const keyOf = (r: { site_id: number; event: string; app_id: number | null }) => `${r.site_id}\u0000${r.event}\u0000${r.app_id ?? ''}`;
    const keys = new Map<string, number>();
    const keyList: { siteId: number; event: string; appId: number | null }[] = [];
    for (const r of rows) {
      const k = keyOf(r);
      if (!keys.has(k)) {
        keys.set(k, keyList.length);
        keyList.push({ siteId: r.site_id, event: r.event, appId: r.app_id });
      }
    }
    const subs: { function_id: number; filter_conditions: string | null }[][] = keyList.map(() => []);
    for (const s of await subscriptionRepository.subscribersOfKeys(client, keyList)) subs[s.key].push(s);
    const items: { outboxId: string; functionId: number }[] = [];
    for (const row of rows)
      for (const fn of subs[keys.get(keyOf(row))!])
        if (passesFilter(fn.filter_conditions, row.payload)) items.push({ outboxId: row.id, functionId: fn.function_id });
    const inserted = await invocations.createFromOutbox(client, items, EVENT_ATTEMPTS);
    await outboxRepository.remove(
      client,
      rows.map((r) => r.id),
    );
    const created = inserted.map((inv) => ({
      job: { siteId: inv.site_id, invocationId: inv.id },
      taskId: inv.task_id,
      attempts: EVENT_ATTEMPTS,
    }));
    return { created, taken: rows.length };
  });
}

async function relayAll(platform: Platform): Promise<void> {
  for (;;) {
    const { created, taken } = await relayBatch(platform);
    if (created.length) await queue(platform).enqueueMany(created);
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
  if (stale.length)
    await queue(platform).enqueueMany(
      stale.map((s) => ({ job: { siteId: s.site_id, invocationId: s.id }, taskId: s.task_id, attempts: s.max_attempts })),
    );
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
