// Removing provider content after its rows are gone (docs/storage.md "Crash safety"). A row
// change that orphans content (object deleted or replaced, bucket deleted) records the key in
// storage_cleanup in the same transaction; after the commit the content is deleted and the
// record removed. A crash in between leaves the record, which the next cleanup pass (at start
// and every STORAGE_CLEANUP_INTERVAL_MS, `startCleanupSchedule`) finishes. Content written for a
// row that was never committed is swept by `sweepOrphans` once older than STORAGE_ORPHAN_GRACE_MS.
import type { Platform } from '../core/context.js';
import { startPeriodic, type Periodic } from '../core/periodic.js';
import { outsideRequestScope } from '../core/request-db.js';
import { providerFor } from './providers/registry.js';
import { PROVIDERS, type ProviderName } from './providers/provider.js';
import { storageRepository as repo } from './storage.repository.js';

/** Work in flight, so that tests and shutdown can wait for it. */
const inFlight = new Set<Promise<void>>();

/**
 * Deletes one queued content and its queue entry. Runs outside the request's database scope
 * (core/request-db.ts): the row change it finishes is committed, so neither the request's
 * deadline nor its client going away may stop it (else the entry waits for the next pass).
 */
export function runCleanup(
  platform: Platform,
  item: { id: number; provider: ProviderName; key: string; isPrefix: boolean },
): Promise<void> {
  return outsideRequestScope(() => cleanupNow(platform, item));
}

async function cleanupNow(platform: Platform, item: { id: number; provider: ProviderName; key: string; isPrefix: boolean }): Promise<void> {
  const provider = providerFor(platform, item.provider);
  if (!provider) return;
  try {
    if (item.isPrefix) await provider.deletePrefix(item.key);
    else await provider.delete(item.key);
    await repo.doneCleanup(platform.pool, item.id);
  } catch (e) {
    platform.log.warn({ err: { message: (e as Error).message }, key: item.key }, 'storage cleanup failed; will retry');
    await repo.failedCleanup(platform.pool, item.id).catch(() => undefined);
    throw e;
  }
}

/** Runs a cleanup after the response (bucket deletion: the files of a large bucket take a while). */
export function cleanupInBackground(
  platform: Platform,
  item: { id: number; provider: ProviderName; key: string; isPrefix: boolean },
): void {
  const p = runCleanup(platform, item)
    .catch(() => undefined)
    .finally(() => inFlight.delete(p));
  inFlight.add(p);
}

/** Resolves when every background cleanup started so far has finished. */
export async function cleanupIdle(): Promise<void> {
  while (inFlight.size > 0) await Promise.all([...inFlight]);
}

/** Retries every pending cleanup record (start-up and periodic pass). */
export async function cleanupPass(platform: Platform, limit = 1000): Promise<number> {
  let done = 0;
  for (const item of await repo.pendingCleanup(platform.pool, limit)) {
    await runCleanup(platform, item).then(
      () => done++,
      () => undefined,
    );
  }
  return done;
}

/**
 * Deletes provider content that no row refers to and that is older than `graceMs` (written for an
 * upload whose transaction never committed, e.g. a crash between the write and the commit).
 */
export async function sweepOrphans(platform: Platform, name: ProviderName, graceMs = 60 * 60 * 1000): Promise<number> {
  const provider = providerFor(platform, name);
  if (!provider) return 0;
  const keys = await provider.list('');
  const buckets = await repo.bucketUuids(platform.pool);
  let removed = 0;
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500);
    const known = await repo.existingKeys(platform.pool, chunk);
    for (const key of chunk) {
      if (known.has(key)) continue;
      // Keys are `<bucket uuid>/<version>`: a key of a live bucket may be an upload in progress.
      const [bucketUuid, version] = key.split('/');
      const startedAt = Number.parseInt(version?.slice(0, 12) ?? '', 16);
      if (buckets.has(bucketUuid) && Number.isFinite(startedAt) && Date.now() - startedAt < graceMs) continue;
      await provider.delete(key);
      removed++;
    }
  }
  return removed;
}

// ---- schedule ------------------------------------------------------------------------------

export interface CleanupPassResult {
  /** Queue entries finished. */
  retried: number;
  /** Orphan contents removed, all providers. */
  swept: number;
}

const schedules = new WeakMap<Platform, Periodic<CleanupPassResult>>();

/** Both passes once: the queue, then orphan content of every configured provider. */
export async function scheduledCleanupPass(platform: Platform): Promise<CleanupPassResult> {
  const result: CleanupPassResult = { retried: await cleanupPass(platform), swept: 0 };
  for (const name of PROVIDERS) {
    try {
      result.swept += await sweepOrphans(platform, name, platform.config.storage.orphanGraceMs);
      result.swept += (await providerFor(platform, name)?.sweepTemp?.(platform.config.storage.orphanGraceMs)) ?? 0;
    } catch (e) {
      platform.log.warn({ err: { message: (e as Error).message }, provider: name }, 'storage orphan sweep failed; next pass retries');
    }
  }
  const level = result.retried || result.swept ? 'info' : 'debug';
  platform.log[level]({ component: 'storage-cleanup', ...result }, 'storage cleanup pass');
  return result;
}

/**
 * Runs the cleanup pass at start and every STORAGE_CLEANUP_INTERVAL_MS (0: never)
 * (core/periodic.ts). Every process of the platform runs it: the passes are idempotent (deleting
 * content that is already gone is no error, a queue entry is removed once its content is).
 */
export function startCleanupSchedule(platform: Platform): void {
  schedules.set(
    platform,
    startPeriodic(platform, {
      what: 'storage cleanup pass',
      intervalMs: platform.config.storage.cleanupIntervalMs,
      pass: () => scheduledCleanupPass(platform),
      onClose: cleanupIdle,
    }),
  );
}

/** Passes completed by the platform's schedule, and the last one's result. */
export function cleanupSchedule(platform: Platform): { scheduled: boolean; passes: number; last: CleanupPassResult | null } {
  return schedules.get(platform)?.status() ?? { scheduled: false, passes: 0, last: null };
}
