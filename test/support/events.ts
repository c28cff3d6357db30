// Helpers for the events module's tests: waiting for background deliveries.
import type { Platform } from '../../subgraphs/core/platform.js';

/** Polls `check` until it returns a truthy value (or fails after `ms`). */
export async function waitFor<T>(check: () => Promise<T | null | undefined | false>, ms = 15_000, what = 'condition'): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function invocationsOf(platform: Platform, functionId: number) {
  const r = await platform.pool.query(`SELECT * FROM event_invocations WHERE function_id = $1 ORDER BY id`, [functionId]);
  return r.rows;
}
