// The durable job queue of function runs: BullMQ always (DECISIONS §1). With REDIS_URL on
// Redis; without it on BullMQ's PostgreSQL backend in the platform database (schema
// `bullmq`), so the embedded default needs no other server. A job carries the site and the
// invocation id; its id is the invocation's task id, so enqueuing the same invocation twice
// (a sweep after a crash) adds no second job while the first is known to the queue.
import { Queue, Worker, createPostgresBackend, type Job, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { Platform } from '../../core/context.js';

export const QUEUE_NAME = 'function-runs';

export interface RunJob {
  siteId: number;
  invocationId: number;
  /**
   * Jobs queued before the caller was kept with the invocation (migration 0010) carry it here;
   * the worker prefers the row's.
   */
  user?: unknown;
}

/** Exponential backoff between event attempts: 500 ms, 1 s, 2 s, … */
const BACKOFF_MS = 500;

function redisConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableOfflineQueue: true });
}

/** Redis keys are namespaced by database, so platforms (and test files) sharing a Redis stay apart. */
function redisPrefix(platform: Platform): string {
  const db = new URL(platform.databaseUrl).pathname.replace(/^\//, '') || 'platform';
  return `tenantry:${db}`;
}

/**
 * BullMQ's own connections to the platform database. A producer needs few; a worker needs one
 * per job it may be finishing at once (each finish is one statement) plus its fetch and lock
 * renewal, else finished jobs queue for a connection while the next ones wait to start.
 *
 * They commit asynchronously (`synchronous_commit=off`: no WAL flush wait per queue operation).
 * The queue is not what delivery rests on (docs/events.md "Delivery"): its state is made durable
 * by the next synchronous commit after it (PostgreSQL's log is written in order; the worker's
 * claim of the invocation is synchronous), and what a database crash could lose of it, a job
 * added or moved, is recovered as a lost Redis job is: the sweeps re-enqueue pending
 * invocations, a stalled active job is run again (and counted as a redelivery).
 */
const pgConnection = (platform: Platform, max = 3) => ({
  connectionString: platform.databaseUrl,
  max,
  migrate: true,
  options: '-c synchronous_commit=off',
});

/** What the platform uses of a BullMQ queue, whichever backend it runs on. */
interface MinimalQueue {
  add(name: string, data: RunJob, opts: JobsOptions): Promise<unknown>;
  addBulk(jobs: { name: string; data: RunJob; opts: JobsOptions }[]): Promise<unknown>;
  on(event: 'error', listener: (e: Error) => void): unknown;
  close(): Promise<void>;
}

interface MinimalWorker {
  on(event: 'error', listener: (e: Error) => void): unknown;
  close(): Promise<void>;
}

export interface RunQueue {
  enqueue(job: RunJob, taskId: string, attempts: number): Promise<void>;
  /** Several jobs in one call: one statement on PostgreSQL, one pipeline on Redis. */
  enqueueMany(jobs: readonly { job: RunJob; taskId: string; attempts: number }[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Options of a job. Finished jobs stay known to the queue for a while (an hour; a day for the
 * rare failed job, whose handler itself threw: the database unreachable), so that a sweep that
 * read an invocation as pending just before its job completed adds nothing. On PostgreSQL the
 * retention is by age only: a count-based one deletes with `id NOT IN (the newest N)`, which
 * reads every kept job on each completion (an O(N) statement per job, N up to 10,000); by age
 * it is an index range scan. On Redis the count bound is cheap and caps the memory.
 */
const jobOptions = (taskId: string, attempts: number, onRedis: boolean): JobsOptions => ({
  jobId: taskId,
  attempts,
  backoff: { type: 'exponential', delay: BACKOFF_MS },
  removeOnComplete: onRedis ? { age: 3600, count: 10_000 } : { age: 3600 },
  removeOnFail: onRedis ? { age: 86_400, count: 10_000 } : { age: 86_400 },
});

export function openQueue(platform: Platform): RunQueue {
  const url = platform.config.redisUrl;
  const redis = url ? redisConnection(url) : null;
  const queue: MinimalQueue = redis
    ? new Queue(QUEUE_NAME, { connection: redis, prefix: redisPrefix(platform) })
    : new Queue(QUEUE_NAME, { connection: pgConnection(platform) }, createPostgresBackend);
  queue.on('error', (e: Error) => platform.log.warn({ err: e.message }, 'events queue error'));
  return {
    async enqueue(job, taskId, attempts) {
      await queue.add('run', job, jobOptions(taskId, attempts, !!redis));
    },
    async enqueueMany(jobs) {
      const opts = (j: (typeof jobs)[number]) => jobOptions(j.taskId, j.attempts, !!redis);
      if (jobs.length === 1) await queue.add('run', jobs[0].job, opts(jobs[0]));
      else if (jobs.length > 1) await queue.addBulk(jobs.map((j) => ({ name: 'run', data: j.job, opts: opts(j) })));
    },
    async close() {
      await queue.close().catch(() => undefined);
      if (redis) await redis.quit().catch(() => undefined);
    },
  };
}

export type JobHandler = (job: RunJob) => Promise<void>;

/** A worker on the queue; several processes may each run one (`npm run start:worker`). */
export function startQueueWorker(platform: Platform, handle: JobHandler): { close(): Promise<void> } {
  const url = platform.config.redisUrl;
  const redis = url ? redisConnection(url) : null;
  const processor = async (job: Job<RunJob>) => handle(job.data);
  const concurrency = platform.config.events.workerConcurrency;
  const opts = { concurrency };
  const worker: MinimalWorker = redis
    ? new Worker(QUEUE_NAME, processor, { ...opts, connection: redis, prefix: redisPrefix(platform) })
    : new Worker(
        QUEUE_NAME,
        processor,
        { ...opts, connection: pgConnection(platform, Math.min(concurrency + 2, 16)) },
        createPostgresBackend,
      );
  worker.on('error', (e: Error) => platform.log.warn({ err: e.message }, 'events worker error'));
  return {
    async close() {
      await worker.close().catch(() => undefined);
      if (redis) await redis.quit().catch(() => undefined);
    },
  };
}
