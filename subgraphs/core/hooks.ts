// Hook points between modules, defined by the kernel so that modules never import each
// other's internals: the module that owns an operation calls the hook, modules that care
// register handlers in their manifest's `register`. One registry per Platform, so test apps
// and platforms in one process never see each other's handlers.
//
// Also the module APIs: a few queries one module answers for another (an app's table count
// for the tenancy module's app views), provided by the owning module at registration.
import type pg from 'pg';
import type { Logger } from 'pino';
import { errors, isAppError } from './errors.js';
import type { Tx } from './db.js';

/** A user as the events carry it (DECISIONS §7): the API's user view, never a password. */
export interface HookUser {
  uuid: string;
  slug: string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  is_staff: boolean;
  is_superuser: boolean;
  is_active: boolean;
  date_joined: string;
  last_login: string | null;
}

/** The user about to be created, as the API would show it; never the password. */
export type ProposedUser = Pick<HookUser, 'username' | 'email' | 'first_name' | 'last_name' | 'is_staff' | 'is_superuser'>;

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

/** A user event as the POST_USER_* events carry it (DECISIONS §7). */
export type UserEvent =
  | { type: 'POST_USER_CREATE'; user: HookUser }
  | { type: 'POST_USER_UPDATE'; user: HookUser; previous: HookUser }
  | { type: 'POST_USER_DELETE'; user: HookUser };

/** What a hook receives as the request context (the platform's RequestContext). */
export interface HookContext {
  log: Logger;
}

/** Every hook point and the signature of its handlers. */
export interface HookHandlers<Ctx extends HookContext> {
  /** Inside the transaction that creates a site: modules add the site's own rows; a failure aborts the creation. */
  siteCreated: (tx: Tx, site: { id: number; schemaName: string }) => Promise<void>;
  /** Before a user is inserted; all handlers run together and the first failure aborts the creation. */
  userBeforeCreate: (user: ProposedUser, ctx: Ctx) => unknown;
  userAfterCreate: (user: HookUser, ctx: Ctx) => unknown;
  userAfterUpdate: (user: HookUser, previous: HookUser, ctx: Ctx) => unknown;
  userAfterDelete: (user: HookUser, ctx: Ctx) => unknown;
  /**
   * Inside the transaction that moved a user's token version on (password change or reset,
   * deactivation, deletion): the auth module revokes the user's refresh tokens and sessions.
   */
  userTokensRevoked: (tx: Tx, user: { id: number; uuid: string }) => Promise<void>;
  /** The record events of one committed write request, in order; `ctx.site` is the tenant. */
  recordsCommitted: (events: readonly RecordEvent[], ctx: Ctx) => unknown;
  /**
   * Inside the transaction of a record write, before COMMIT, with the write's record events
   * in order (the events module's outbox); a failure aborts the write.
   */
  recordsWritten: (client: pg.PoolClient, events: readonly RecordEvent[], ctx: Ctx) => Promise<void>;
  /** Inside the transaction that creates, updates or deletes a user, before COMMIT; a failure aborts it. */
  userWritten: (tx: Tx, event: UserEvent, ctx: Ctx) => Promise<void>;
  /** The platform is closing: stop background work while the connections still exist. */
  platformClosing: () => Promise<void>;
}

export type HookName = keyof HookHandlers<HookContext>;

/** Queries one module answers for another; each is provided by its owning module. */
export interface ModuleApis<Ctx extends HookContext> {
  /** data: how many datatables each app has (one query for the whole set). */
  appTableCounts(ctx: Ctx, appIds: number[]): Promise<Map<number, number>>;
}

const NO_APIS: ModuleApis<never> = {
  appTableCounts: async () => new Map(),
};

export class Hooks<Ctx extends HookContext> {
  private readonly handlers = new Map<HookName, Set<unknown>>();
  private readonly apis: ModuleApis<Ctx> = { ...NO_APIS };

  /** Registers a handler; returns the function that removes it again. */
  on<K extends HookName>(name: K, handler: HookHandlers<Ctx>[K]): () => void {
    let set = this.handlers.get(name);
    if (!set) this.handlers.set(name, (set = new Set()));
    set.add(handler);
    return () => void set.delete(handler);
  }

  private list<K extends HookName>(name: K): HookHandlers<Ctx>[K][] {
    const set = this.handlers.get(name) as Set<HookHandlers<Ctx>[K]> | undefined;
    return set ? [...set] : [];
  }

  /**
   * Runs every handler together and waits for all; the first failure is rethrown (a platform
   * error as it is, anything else as a logged 500). For hooks that may veto an operation.
   */
  async runBlocking<K extends HookName>(ctx: Ctx | null, name: K, ...args: Parameters<HookHandlers<Ctx>[K]>): Promise<void> {
    const list = this.list(name);
    if (list.length === 0) return;
    try {
      await Promise.all(list.map(async (h) => (h as (...a: unknown[]) => unknown)(...args)));
    } catch (e) {
      if (isAppError(e) || !ctx) throw e;
      ctx.log.error({ err: (e as Error)?.message, hook: name }, 'hook failed');
      throw errors.internal();
    }
  }

  /** Runs every handler, awaited but never throwing: failures are logged. For after-commit notifications. */
  async runAfter<K extends HookName>(ctx: Ctx, name: K, ...args: Parameters<HookHandlers<Ctx>[K]>): Promise<void> {
    const list = this.list(name);
    if (list.length === 0) return;
    const results = await Promise.allSettled(list.map(async (h) => (h as (...a: unknown[]) => unknown)(...args)));
    for (const r of results) {
      if (r.status === 'rejected') ctx.log.error({ err: (r.reason as Error)?.message, hook: name }, 'hook failed');
    }
  }

  /** Called by the owning module at registration. */
  provide<K extends keyof ModuleApis<Ctx>>(name: K, impl: ModuleApis<Ctx>[K]): void {
    this.apis[name] = impl;
  }

  get api(): Readonly<ModuleApis<Ctx>> {
    return this.apis;
  }
}
