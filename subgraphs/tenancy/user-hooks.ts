// Hook points around user writes, for the events module (DECISIONS §7: PRE_USER_CREATE,
// POST_USER_CREATE, POST_USER_UPDATE, POST_USER_DELETE). A registry per Platform (not per
// module), so test apps and platforms in one process never see each other's hooks.
//
// beforeCreate hooks run together before the user is inserted; the first one to throw aborts
// the creation (an AppError keeps its status; anything else is a 500). After-hooks run once
// the transaction has committed; their failures are logged and never fail the request.
import type { RequestContext } from '../core/context.js';
import { errors, isAppError } from '../core/errors.js';
import type { Platform } from '../core/platform.js';
import type { UserView } from './user.service.js';

/** The user about to be created, as the API would show it; never the password. */
export type ProposedUser = Pick<UserView, 'username' | 'email' | 'first_name' | 'last_name' | 'is_staff' | 'is_superuser'>;

export interface UserHooks {
  beforeCreate?: (user: ProposedUser, ctx: RequestContext) => unknown;
  afterCreate?: (user: UserView, ctx: RequestContext) => unknown;
  afterUpdate?: (user: UserView, previous: UserView, ctx: RequestContext) => unknown;
  afterDelete?: (user: UserView, ctx: RequestContext) => unknown;
}

const registries = new WeakMap<Platform, Set<UserHooks>>();

function hooksOf(platform: Platform): Set<UserHooks> {
  let set = registries.get(platform);
  if (!set) {
    set = new Set();
    registries.set(platform, set);
  }
  return set;
}

/** Registers hooks on a platform; returns the function that removes them again. */
export function registerUserHooks(platform: Platform, hooks: UserHooks): () => void {
  const set = hooksOf(platform);
  set.add(hooks);
  return () => void set.delete(hooks);
}

export async function runBeforeCreate(ctx: RequestContext, user: ProposedUser): Promise<void> {
  const list = [...hooksOf(ctx.platform)].filter((h) => h.beforeCreate);
  if (list.length === 0) return;
  try {
    // Each hook gets its own copy: one hook cannot alter what the next one sees.
    await Promise.all(list.map(async (h) => h.beforeCreate!({ ...user }, ctx)));
  } catch (e) {
    if (isAppError(e)) throw e;
    ctx.log.error({ err: (e as Error)?.message, hook: 'beforeCreate' }, 'user hook failed');
    throw errors.internal();
  }
}

type AfterKind = 'afterCreate' | 'afterUpdate' | 'afterDelete';

/** Runs after-hooks of one kind; awaited (so callers observe them) but never throwing. */
export async function runAfter(ctx: RequestContext, kind: AfterKind, user: UserView, previous?: UserView): Promise<void> {
  const list = [...hooksOf(ctx.platform)];
  const results = await Promise.allSettled(
    list.map(async (h) => {
      if (kind === 'afterUpdate') return h.afterUpdate?.({ ...user }, { ...previous! }, ctx);
      return h[kind]?.({ ...user }, ctx);
    }),
  );
  for (const r of results) {
    if (r.status === 'rejected') ctx.log.error({ err: (r.reason as Error)?.message, hook: kind, user: user.uuid }, 'user hook failed');
  }
}
