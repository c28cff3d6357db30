// Hook points after record writes, for the events module (DECISIONS §6, §7: RECORD_CREATE,
// RECORD_UPDATE, RECORD_DELETE once per affected record, after commit). A registry per
// Platform, so test apps in one process never see each other's hooks. Hooks are awaited (so
// callers and tests observe them) but their failures are logged and never fail the request.
import type { RequestContext } from '../../core/context.js';
import type { Platform } from '../../core/platform.js';

export type DataRecord = Record<string, unknown>;

interface RecordEventBase {
  app_slug: string;
  datatable: string;
  /** The primary key as in record paths (composite keys joined by `,`). */
  record_id: string;
  data: DataRecord;
}

export type RecordEvent =
  | (RecordEventBase & { type: 'RECORD_CREATE' })
  | (RecordEventBase & { type: 'RECORD_UPDATE'; previous: DataRecord })
  | (RecordEventBase & { type: 'RECORD_DELETE'; hard: boolean });

/** Receives the events of one committed request, in order; `ctx.site` is the tenant. */
export type RecordHook = (events: readonly RecordEvent[], ctx: RequestContext) => unknown;

const registries = new WeakMap<Platform, Set<RecordHook>>();

function hooksOf(platform: Platform): Set<RecordHook> {
  let set = registries.get(platform);
  if (!set) {
    set = new Set();
    registries.set(platform, set);
  }
  return set;
}

/** Registers a hook on a platform; returns the function that removes it again. */
export function registerRecordHook(platform: Platform, hook: RecordHook): () => void {
  const set = hooksOf(platform);
  set.add(hook);
  return () => void set.delete(hook);
}

/** Call after the write's transaction has committed. */
export async function fireRecordEvents(ctx: RequestContext, events: readonly RecordEvent[]): Promise<void> {
  const hooks = registries.get(ctx.platform);
  if (!hooks || hooks.size === 0 || events.length === 0) return;
  const results = await Promise.allSettled([...hooks].map(async (h) => h(events, ctx)));
  for (const r of results) {
    if (r.status === 'rejected') ctx.log.error({ err: (r.reason as Error)?.message, events: events.length }, 'record hook failed');
  }
}
