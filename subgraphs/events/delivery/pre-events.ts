// PRE_* events block the operation (DECISIONS §7): every subscriber of the site runs at once,
// all under ONE deadline (the smallest time-out among them, capped by EVENTS_PRE_DEADLINE_MS);
// the first failure or time-out rejects the operation with 400 `pre_event_rejected` at once,
// without waiting for the others (they finish or time out in the background and record their
// own outcome). A subscriber rejects by failing: throwing (app), a non-2xx answer (proxy).
import type { RequestContext } from '../../core/context.js';
import type { EventName } from '../event-names.js';
import { eventsErrors } from '../events-errors.js';
import type { FunctionRow } from '../functions/function.repository.js';
import { invocationRepository as invocations } from '../invocations/invocation.repository.js';
import type { RunOutcome } from '../runtime/outcome.js';
import { runFunction } from '../runtime/runner.js';
import { subscriptionRepository } from '../subscriptions/subscription.repository.js';
import { passesFilter } from './cel-filter.js';

class Rejected {
  constructor(
    readonly fn: FunctionRow,
    readonly taskId: string,
    readonly outcome: RunOutcome,
  ) {}
}

export function preDeadlineMs(fns: readonly FunctionRow[], capMs: number): number {
  return Math.min(capMs, ...fns.map((f) => f.timeout_seconds * 1000));
}

export async function runPreEvent(ctx: RequestContext, event: EventName, payload: Record<string, unknown>): Promise<void> {
  if (!ctx.site) return; // user events belong to the site of the request's host (docs/events.md)
  const { pool } = ctx.platform;
  const siteId = ctx.site.id;
  const fns = (await subscriptionRepository.subscribers(pool, siteId, event, null)).filter((f) =>
    passesFilter(f.filter_conditions, payload),
  );
  if (fns.length === 0) return;
  const deadline = preDeadlineMs(fns, ctx.platform.config.events.preDeadlineMs);
  const runs = fns.map(async (fn) => {
    const inv = (await invocations.create(pool, {
      siteId,
      functionId: fn.id,
      triggerType: 'event',
      event,
      params: payload,
      maxAttempts: 1,
      status: 'running',
    }))!;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<RunOutcome>((resolve) => {
      timer = setTimeout(
        () => resolve({ status: 'timed_out', result: null, error: `No answer within the ${deadline} ms deadline.`, logs: [] }),
        deadline + 50,
      );
    });
    const outcome = await Promise.race([runFunction(ctx.platform, { fn, params: payload, user: null, timeoutMs: deadline }), late]);
    clearTimeout(timer);
    await invocations.finish(pool, inv.id, outcome, true, false);
    if (outcome.status !== 'succeeded') throw new Rejected(fn, inv.task_id, outcome);
  });
  try {
    await Promise.all(runs);
  } catch (e) {
    for (const r of runs) r.catch(() => undefined);
    if (!(e instanceof Rejected)) throw e;
    const why = e.outcome.status === 'timed_out' ? 'timed out' : `failed: ${e.outcome.error ?? 'unknown error'}`;
    throw eventsErrors.preEventRejected(`${event} was rejected: function "${e.fn.name}" ${why}`, {
      function_id: e.fn.id,
      function_name: e.fn.name,
      status: e.outcome.status,
      task_id: e.taskId,
    });
  }
}
