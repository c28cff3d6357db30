// App-mode functions: JavaScript `async function main(params, user, ctx)` run in a V8 isolate
// (isolated-vm). The isolate has no require, process, network, file system or timers: its
// globals are the language's own plus `ctx.log`. Memory is bounded by the isolate's heap limit,
// time by the isolate's CPU time-out and by a wall-clock timer that disposes the isolate (a
// promise that never settles, a loop in a continuation). Values cross the boundary as copies
// (JSON), never as references to host objects.
import type ivmTypes from 'isolated-vm';
import { failed, LIMITS, LogBuffer, type RunOutcome } from './outcome.js';

type Ivm = typeof ivmTypes;
let loaded: Promise<Ivm> | null = null;
/** Loaded on first use: the native addon costs nothing to processes that never run a function. */
const ivmModule = (): Promise<Ivm> =>
  (loaded ??= import('isolated-vm').then((m) => (m as { default?: Ivm }).default ?? (m as unknown as Ivm)));

interface Compiled {
  isolate: ivmTypes.Isolate;
  script: ivmTypes.Script;
}

/**
 * Compiled isolates by function version (least recently used first); each run still gets a
 * fresh context. An isolate evicted to make room is disposed once the runs using it are done
 * (a run never loses its isolate because other functions were called); one whose run timed
 * out or ran out of memory is disposed at once (that is what stops the runaway code).
 */
interface Entry {
  compiled: Promise<Compiled>;
  /** Runs using the isolate now. */
  users: number;
  /** Out of the cache: dispose when the last user is done. */
  evicted: boolean;
  /** Disposed at once because a run of it timed out or exceeded its memory. */
  killed: boolean;
}
const cache = new Map<string, Entry>();
const MAX_CACHED = 16;

async function compile(code: string): Promise<Compiled> {
  const ivm = await ivmModule();
  const isolate = new ivm.Isolate({ memoryLimit: LIMITS.memoryMb });
  try {
    const script = await isolate.compileScript(code, { filename: 'function.js' });
    return { isolate, script };
  } catch (e) {
    isolate.dispose();
    throw e;
  }
}

const disposeOf = (e: Entry) => void e.compiled.then((c) => !c.isolate.isDisposed && c.isolate.dispose()).catch(() => undefined);

/** The cached entry of `key` (compiled on first use), marked in use; a one-off when key is null. */
function acquire(key: string | null, code: string): Entry {
  if (key === null) return { compiled: compile(code), users: 1, evicted: true, killed: false };
  let e = cache.get(key);
  if (e)
    cache.delete(key); // re-inserted below: most recently used last
  else {
    while (cache.size >= MAX_CACHED) evict(cache.keys().next().value as string);
    const entry: Entry = { compiled: compile(code), users: 0, evicted: false, killed: false };
    entry.compiled.catch(() => cache.get(key) === entry && cache.delete(key));
    e = entry;
  }
  cache.set(key, e);
  e.users++;
  return e;
}

function release(e: Entry): void {
  e.users--;
  if (e.evicted && e.users === 0) disposeOf(e);
}

function evict(key: string): void {
  const e = cache.get(key);
  cache.delete(key);
  if (!e) return;
  e.evicted = true;
  if (e.users === 0) disposeOf(e);
}

/** Stops an isolate now (a run timed out or ran out of memory), whoever else is using it. */
function kill(key: string | null, e: Entry): void {
  e.killed = true;
  e.evicted = true;
  if (key !== null && cache.get(key) === e) cache.delete(key);
  disposeOf(e);
}

/** Frees every cached isolate not in use (tests, shutdown); the others when their runs end. */
export function disposeSandboxes(): void {
  for (const k of [...cache.keys()]) evict(k);
}

const BOOT = `
const __logFn = $0;
const __fmt = (v) => { if (typeof v === 'string') return v; try { return JSON.stringify(v); } catch { return String(v); } };
if (typeof main !== 'function') throw new Error('The code must define async function main(params, user, ctx).');
const __ctx = Object.freeze({ log: (...args) => { __logFn(args.map(__fmt).join(' ')); } });
return Promise.resolve(main($1, $2, __ctx)).then((r) => {
  const s = JSON.stringify(r === undefined ? null : r);
  if (s === undefined) throw new Error('The result must be JSON.');
  return s;
});`;

function message(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.length > 2000 ? m.slice(0, 2000) + '…' : m;
}

export interface SandboxRun {
  /** Cache key of this code version (function id + updated_at), or null for a one-off. */
  key: string | null;
  code: string;
  params: unknown;
  user: unknown;
  timeoutMs: number;
}

export async function runInSandbox(run: SandboxRun): Promise<RunOutcome> {
  const entry = acquire(run.key, run.code);
  try {
    return await runOn(entry, run);
  } finally {
    release(entry);
  }
}

async function runOn(entry: Entry, run: SandboxRun): Promise<RunOutcome> {
  const logs = new LogBuffer();
  let c: Compiled;
  try {
    c = await entry.compiled;
  } catch (e) {
    return failed(`The code does not compile: ${message(e)}`);
  }
  const { isolate } = c;
  const ivm = await ivmModule();
  let context: ivmTypes.Context | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  try {
    context = await isolate.createContext();
    await c.script.run(context, { timeout: run.timeoutMs });
    const logFn = new ivm.Callback((line: string) => logs.push(String(line)));
    const call = context.evalClosure(
      BOOT,
      [logFn, new ivm.ExternalCopy(run.params ?? null).copyInto(), new ivm.ExternalCopy(run.user ?? null).copyInto()],
      {
        result: { promise: true, copy: true },
        timeout: run.timeoutMs,
      },
    ) as unknown as Promise<string>;
    const wall = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error('timed out'));
      }, run.timeoutMs);
    });
    const text = await Promise.race([call, wall]);
    if (text.length > LIMITS.resultBytes) return failed(`The result is larger than ${LIMITS.resultBytes} bytes.`, logs.done());
    return { status: 'succeeded', result: JSON.parse(text), error: null, logs: logs.done() };
  } catch (e) {
    const m = message(e);
    // Another run of this function version timed out or ran out of memory: its isolate (shared
    // with this run) was stopped under this one.
    if (entry.killed && !timedOut && !/timed out|memory limit/i.test(m))
      return failed('The run was stopped: another run of this function version timed out or exceeded its memory.', logs.done());
    if (timedOut || /timed out/i.test(m)) {
      kill(run.key, entry);
      return { status: 'timed_out', result: null, error: `The function did not finish within ${run.timeoutMs} ms.`, logs: logs.done() };
    }
    if (isolate.isDisposed || /memory limit|disposed/i.test(m)) {
      kill(run.key, entry);
      return failed(`The function exceeded its memory limit (${LIMITS.memoryMb} MiB).`, logs.done());
    }
    return failed(m, logs.done());
  } finally {
    clearTimeout(timer);
    try {
      context?.release();
    } catch {
      // the isolate is gone already
    }
  }
}
