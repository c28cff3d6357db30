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
  /** API runs: the caller as the function's `user` argument (identity only). */
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

const pgConnection = (platform: Platform) => ({ connectionString: platform.databaseUrl, max: 3, migrate: true });

/** What the platform uses of a BullMQ queue, whichever backend it runs on. */
interface MinimalQueue {
  add(name: string, data: RunJob, opts: JobsOptions): Promise<unknown>;
  on(event: 'error', listener: (e: Error) => void): unknown;
  close(): Promise<void>;
}

interface MinimalWorker {
  on(event: 'error', listener: (e: Error) => void): unknown;
  close(): Promise<void>;
}

export interface RunQueue {
  enqueue(job: RunJob, taskId: string, attempts: number): Promise<void>;
  close(): Promise<void>;
}

export function openQueue(platform: Platform): RunQueue {
  const url = platform.config.redisUrl;
  const redis = url ? redisConnection(url) : null;
  const queue: MinimalQueue = redis
    ? new Queue(QUEUE_NAME, { connection: redis, prefix: redisPrefix(platform) })
    : new Queue(QUEUE_NAME, { connection: pgConnection(platform) }, createPostgresBackend);
  queue.on('error', (e: Error) => platform.log.warn({ err: e.message }, 'events queue error'));
  return {
    async enqueue(job, taskId, attempts) {
      await queue.add('run', job, {
        jobId: taskId,
        attempts,
        backoff: { type: 'exponential', delay: BACKOFF_MS },
        removeOnComplete: { age: 3600, count: 10_000 },
        removeOnFail: { age: 86_400, count: 10_000 },
      });
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
  const opts = { concurrency: platform.config.events.workerConcurrency };
  const worker: MinimalWorker = redis
    ? new Worker(QUEUE_NAME, processor, { ...opts, connection: redis, prefix: redisPrefix(platform) })
    : new Worker(QUEUE_NAME, processor, { ...opts, connection: pgConnection(platform) }, createPostgresBackend);
  worker.on('error', (e: Error) => platform.log.warn({ err: e.message }, 'events worker error'));
  return {
    async close() {
      await worker.close().catch(() => undefined);
      if (redis) await redis.quit().catch(() => undefined);
    },
  };
}
