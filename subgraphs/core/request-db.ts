// A request's database work stops when its client disconnects or its deadline passes.
//
// Each HTTP request runs in a scope (AsyncLocalStorage). Every connection the pool hands out
// inside that scope — to raw SQL, to Prisma's driver adapter, to a transaction — is tracked
// while it is checked out. When the scope is aborted (deadline REQUEST_TIMEOUT_MS, or the
// client went away), the statement running on each of those connections is cancelled with
// pg_cancel_backend, and the scope hands out no further connection: the rest of the request
// (the other aliases of a GraphQL operation, the next page of a loop) fails at once.
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { AppError } from './errors.js';

export type AbortReason = 'deadline' | 'disconnect';

export class RequestDbScope {
  readonly clients = new Set<pg.PoolClient>();
  reason: AbortReason | null = null;
  /** While cancels are being sent, released connections wait: a pid must not be cancelled once another request holds it. */
  cancelling: Promise<void> | null = null;
  constructor(readonly timeoutMs: number) {}

  /** The error a request's database work fails with once the scope is aborted. */
  error(): AppError {
    return this.reason === 'deadline'
      ? new AppError({
          code: 'timeout',
          status: 504,
          message: `The request ran longer than its deadline (${this.timeoutMs} ms, REQUEST_TIMEOUT_MS); its database work was stopped.`,
        })
      : new AppError({ code: 'client_closed_request', status: 499, message: 'The client closed the connection.' });
  }
}

const storage = new AsyncLocalStorage<RequestDbScope>();

/** Runs `fn` (and everything it starts) in `scope`. */
export const runInScope = <T>(scope: RequestDbScope, fn: () => T): T => storage.run(scope, fn);

export const currentScope = (): RequestDbScope | undefined => storage.getStore();

/** Runs `fn` outside any request scope: a record that must be written even for a stopped request. */
export const outsideRequestScope = <T>(fn: () => T): T => storage.exit(fn);

const wrapped = new WeakSet<pg.Pool>();

/** Makes `pool` track its connections per request scope. Idempotent. */
export function trackRequestConnections(pool: pg.Pool): void {
  if (wrapped.has(pool)) return;
  wrapped.add(pool);
  const connect = pool.connect.bind(pool) as (cb?: (err: Error | undefined, client?: pg.PoolClient, done?: () => void) => void) => unknown;
  // pool.query() calls this.connect() too, so one override covers both.
  (pool as { connect: unknown }).connect = (cb?: (err: Error | undefined, client?: pg.PoolClient, done?: () => void) => void) => {
    const scope = storage.getStore();
    if (!scope) return connect(cb);
    if (scope.reason) {
      const err = scope.error();
      if (cb) return void process.nextTick(() => cb(err));
      return Promise.reject(err);
    }
    const adopt = (client: pg.PoolClient): pg.PoolClient => {
      track(scope, client);
      return client;
    };
    if (cb) return connect((err, client, done) => (err || !client ? cb(err, client, done) : cb(err, adopt(client), done)));
    return (connect() as Promise<pg.PoolClient>).then(adopt);
  };
}

function track(scope: RequestDbScope, client: pg.PoolClient): void {
  scope.clients.add(client);
  // pg-pool gives each checkout its own release function: capture this checkout's.
  const base = { release: client.release, query: client.query };
  client.release = (err?: Error | boolean) => {
    scope.clients.delete(client);
    client.release = base.release;
    client.query = base.query;
    if (scope.cancelling) return void scope.cancelling.then(() => base.release.call(client, err));
    return base.release.call(client, err);
  };
  // A statement cancelled because the scope was aborted fails with the scope's error
  // (57014 is also a statement_timeout of the query's own, which keeps its own meaning).
  client.query = function (this: pg.PoolClient, ...args: unknown[]) {
    if (scope.reason && !isRollback(args[0])) {
      const cb = args.find((a) => typeof a === 'function') as ((e: Error) => void) | undefined;
      if (cb) return void process.nextTick(() => cb(scope.error()));
      return Promise.reject(scope.error());
    }
    const out = (base.query as (...a: unknown[]) => unknown).apply(client, args);
    if (out && typeof (out as Promise<unknown>).then === 'function' && typeof (out as { catch?: unknown }).catch === 'function') {
      return (out as Promise<unknown>).catch((e: unknown) => {
        throw scope.reason && (e as { code?: string })?.code === '57014' ? scope.error() : e;
      });
    }
    return out;
  } as pg.PoolClient['query'];
}

function isRollback(query: unknown): boolean {
  const text = typeof query === 'string' ? query : (query as { text?: unknown })?.text;
  return typeof text === 'string' && /^\s*ROLLBACK\b/i.test(text);
}

/**
 * Aborts the scope: each connection it holds gets its running statement cancelled (on a
 * connection of its own, as the pool may be full). Resolves when the cancels were sent.
 */
export async function abortScope(scope: RequestDbScope, reason: AbortReason, databaseUrl: string): Promise<void> {
  if (scope.reason) return;
  scope.reason = reason;
  const pids = [...scope.clients].map((c) => (c as unknown as { processID?: number }).processID).filter((p): p is number => !!p);
  if (!pids.length) return;
  scope.cancelling = (async () => {
    const admin = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
    admin.on('error', () => undefined);
    try {
      await admin.connect();
      await admin.query('SELECT pg_cancel_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    } catch {
      // Best effort: the statement then ends at its own time-out.
    } finally {
      await admin.end().catch(() => undefined);
    }
  })();
  await scope.cancelling;
}
