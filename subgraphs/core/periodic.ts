// Maintenance passes that every process of the platform runs on a timer (storage cleanup,
// expired credentials): once at start, then every `intervalMs` on an unref'd timer, one pass at
// a time; stopped, and a running pass awaited, when the platform closes. Passes must be
// idempotent: every process runs them.
import type { Platform } from './platform.js';

export interface PeriodicStatus<R> {
  /** The timer runs (interval > 0, platform open). */
  scheduled: boolean;
  /** Passes completed since start (tests wait on it). */
  passes: number;
  /** The last completed pass's result. */
  last: R | null;
}

export interface Periodic<R> {
  status(): PeriodicStatus<R>;
}

/**
 * Starts `pass` at once and every `intervalMs` (0: never, not even at start). A failed pass is
 * logged as `what` and retried by the next one; `onClose` runs after the last pass when the
 * platform closes.
 */
export function startPeriodic<R>(
  platform: Platform,
  opts: { what: string; intervalMs: number; pass: () => Promise<R>; onClose?: () => Promise<void> },
): Periodic<R> {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let closed = false;
  let passes = 0;
  let last: R | null = null;
  platform.hooks.on('platformClosing', async () => {
    closed = true;
    if (timer) clearInterval(timer);
    await running;
    await opts.onClose?.();
  });
  const status = () => ({ scheduled: timer !== null && !closed, passes, last });
  if (opts.intervalMs === 0) return { status };
  const tick = () => {
    if (closed || running) return;
    running = opts
      .pass()
      .then(
        (r) => {
          passes++;
          last = r;
        },
        (e: Error) => {
          if (!closed) platform.log.warn({ err: { message: e.message } }, `${opts.what} failed; the next pass retries`);
        },
      )
      .finally(() => {
        running = null;
      });
  };
  tick();
  timer = setInterval(tick, opts.intervalMs);
  timer.unref();
  return { status };
}
