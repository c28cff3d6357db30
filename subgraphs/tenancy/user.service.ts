// Users as the API shows them: the caller (`me`), the console's user management (DECISIONS §4)
// and the first-run superuser.
//
// Who may do what: staff and superusers see and manage every user; any other user sees
// themselves and the members of the organizations they belong to (others answer 404), and
// changes only themselves (403 for a visible other). Only a superuser grants or changes
// is_staff / is_superuser, or changes and deletes a superuser's account.
import type { Logger } from 'pino';
import type { RequestContext, UserPrincipal } from '../core/context.js';
import type { HookUser } from '../core/hooks.js';
import type { Tx } from '../core/db.js';
import { ConfigError } from '../core/config.js';
import { errors, isAppError } from '../core/errors.js';
import { orderBy, pageRequest, searchTerm, type ListInput, type ListResult } from '../core/listing.js';
import { slugOrUuid } from '../core/slug.js';
import { audit } from './audit-log.js';
import { hashPassword, verifyPassword } from './password.js';
import { parseUserFields, type UserFields } from './user-input.js';
import { toUserAccount, toUserView, type UserAccount } from './user-account.js';
import { userRepository, type User, type UserFilter } from './user.repository.js';

/** The user as hook handlers and user events receive it: the API's user view (DECISIONS §7). */
const toHookUser = (u: User): HookUser => toUserView(toUserAccount(u));

/**
 * The signed-in caller (`/api/users/me/`, GraphQL `me`). Authentication has just loaded the
 * caller's own fields (through its bounded cache, refreshed at once by every change made in
 * this process), so the hot path answers without another query.
 */
export async function getMe(ctx: RequestContext): Promise<UserAccount> {
  const p = ctx.principal;
  if (p.kind !== 'user') throw errors.notAuthenticated();
  if (p.row) {
    return {
      uuid: p.uuid,
      slug: p.row.slug,
      username: p.username,
      email: p.row.email,
      firstName: p.row.firstName,
      lastName: p.row.lastName,
      isStaff: p.isStaff,
      isSuperuser: p.isSuperuser,
      isActive: true,
      dateJoined: p.row.createdAt,
      lastLogin: p.row.lastLogin,
    };
  }
  const user = await userRepository.findActiveById(ctx.platform.pool, p.userId);
  if (!user) throw errors.authenticationFailed('User not found or inactive.');
  return toUserAccount(user);
}

export interface SuperuserInput {
  username: string;
  password: string;
  email: string;
}

/**
 * Creates a superuser. Used by the CLI and by the first start, with the rules of
 * `POST /api/users/` (same parser, same messages); `emailOptional` lets ADMIN_EMAIL be unset.
 */
export async function createSuperuser(db: Tx, input: SuperuserInput, opts: { emailOptional?: boolean } = {}): Promise<User> {
  const f = parseUserFields({ username: input.username, email: input.email, password: input.password }, 'create', opts);
  if (await userRepository.usernameTaken(db, f.username!)) throw conflictUsername();
  if (f.email && (await userRepository.findActiveByEmail(db, f.email))) throw conflictEmail();
  return userRepository
    .create(db, {
      username: f.username!,
      email: f.email ?? '',
      passwordHash: await hashPassword(f.password!),
      isStaff: true,
      isSuperuser: true,
    })
    .catch(translateUnique);
}

/** At start: when no superuser exists and ADMIN_* are configured, create one. */
export async function ensureFirstSuperuser(db: Tx, admin: SuperuserInput | null, log: Logger): Promise<void> {
  if (!admin || (await userRepository.anySuperuser(db))) return;
  if (await userRepository.usernameTaken(db, admin.username)) {
    log.warn({ username: admin.username }, 'ADMIN_USERNAME names an existing user who is not a superuser; not changed');
    return;
  }
  const user = await createSuperuser(db, admin, { emailOptional: true }).catch((e: unknown) => {
    // A value the user rules refuse stops the start naming its variable.
    if (isAppError(e) && e.errors) {
      const [field, messages] = Object.entries(e.errors)[0];
      throw new ConfigError(`ADMIN_${field.toUpperCase()}`, messages.join(' '));
    }
    throw e;
  });
  log.info({ username: user.username }, 'first superuser created');
}

// ---- Console user management -------------------------------------------------------------

export const isOperator = (ctx: RequestContext): boolean =>
  ctx.principal.kind === 'user' && (ctx.principal.isStaff || ctx.principal.isSuperuser);

/** The signed-in user; API keys act for an app and never manage console users. */
export function requireUserPrincipal(ctx: RequestContext): UserPrincipal {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (ctx.principal.kind !== 'user') throw errors.permissionDenied();
  return ctx.principal;
}

const ORDERING = {
  username: 'username',
  email: 'email',
  first_name: 'first_name',
  last_name: 'last_name',
  date_joined: 'created_at',
  created_at: 'created_at',
  last_login: 'last_login',
};

function visibility(ctx: RequestContext, includeDeleted = false): Pick<UserFilter, 'viewerId' | 'includeDeleted'> {
  const me = requireUserPrincipal(ctx);
  const operator = isOperator(ctx);
  // Only staff may look at soft-deleted accounts.
  return { viewerId: operator ? null : me.userId, includeDeleted: operator && includeDeleted };
}

export interface UserListInput extends ListInput {
  /** Also soft-deleted accounts (staff only; ignored for others). */
  includeDeleted?: boolean | null;
  isActive?: boolean | null;
  /** Members of this organization (slug or UUID). */
  organizationSlug?: string | null;
}

export async function listUsers(ctx: RequestContext, input: UserListInput): Promise<ListResult<UserAccount>> {
  const vis = visibility(ctx, input.includeDeleted ?? undefined);
  const page = pageRequest(input);
  const order = orderBy(input.ordering, ORDERING, 'username');
  const org = input.organizationSlug?.trim();
  const filter: UserFilter = {
    ...vis,
    search: searchTerm(input.search),
    isActive: input.isActive ?? undefined,
    organization: org ? slugOrUuid(org) : undefined,
  };
  const { rows, count } = await userRepository.list(ctx.platform.pool, filter, order, page);
  return { page, count, items: rows.map(toUserAccount) };
}

/** A user the caller may see, by slug or UUID; 404 otherwise. */
export async function findVisibleUser(ctx: RequestContext, ref: string, includeDeleted = false): Promise<User> {
  const vis = visibility(ctx, includeDeleted);
  // `me` is the caller on every /users/{user}/ path (GET /users/me/ has its own route).
  const where = ref === 'me' ? { uuid: (ctx.principal as UserPrincipal).uuid } : slugOrUuid(ref);
  const user = await userRepository.findOne(ctx.platform.pool, { ...vis, ref: where });
  if (!user) throw errors.notFound('User not found.');
  return user;
}

export async function getUser(ctx: RequestContext, ref: string, opts: { includeDeleted?: boolean } = {}): Promise<UserAccount> {
  return toUserAccount(await findVisibleUser(ctx, ref, opts.includeDeleted ?? false));
}

/** The target of a change: visible (else 404) and the caller's own or the caller is staff (else 403). */
export async function requireChangeableUser(ctx: RequestContext, ref: string, includeDeleted = false): Promise<User> {
  const me = requireUserPrincipal(ctx);
  const user = await findVisibleUser(ctx, ref, includeDeleted);
  const self = user.id === me.userId;
  if (!self && !isOperator(ctx)) throw errors.permissionDenied();
  if (!self && user.isSuperuser && !me.isSuperuser) throw errors.permissionDenied('Only a superuser may change a superuser.');
  return user;
}

const conflictEmail = () =>
  errors.conflict('A user with that email already exists.', { email: ['A user with that email already exists.'] });
const conflictUsername = () =>
  errors.conflict('A user with that username already exists.', { username: ['A user with that username already exists.'] });

/**
 * An e-mail address names one active account: social sign-in links a verified e-mail to "the"
 * user with that address, and invitations look the invitee up by it.
 */
async function checkEmailFree(ctx: RequestContext, email: string | undefined, exceptId?: number): Promise<void> {
  if (!email) return;
  const other = await userRepository.findActiveByEmail(ctx.platform.prisma, email);
  if (other && other.id !== exceptId) {
    throw conflictEmail();
  }
}

function translateUnique(e: unknown): never {
  if (userRepository.isUsernameConflict(e)) throw conflictUsername();
  if (userRepository.isEmailConflict(e)) throw conflictEmail();
  throw e;
}

// Concurrent creates of alike usernames wait on each other's slug (unique index) before one
// retries in its savepoint: allow more than Prisma's default 5 s for such a queue.
const SLUG_TX = { maxWait: 10_000, timeout: 20_000 };

export async function createUser(ctx: RequestContext, body: unknown): Promise<UserAccount> {
  const me = requireUserPrincipal(ctx);
  if (!isOperator(ctx)) throw errors.permissionDenied();
  const f = parseUserFields(body, 'create');
  if ((f.isStaff || f.isSuperuser) && !me.isSuperuser)
    throw errors.permissionDenied('Only a superuser may grant staff or superuser status.');
  const db = ctx.platform.prisma;
  if (await userRepository.usernameTaken(db, f.username!)) throw conflictUsername();
  await checkEmailFree(ctx, f.email);
  const hooks = ctx.platform.hooks;
  // Frozen: no handler can alter what another one sees.
  const proposed = Object.freeze({
    username: f.username!,
    email: f.email!,
    first_name: f.firstName ?? '',
    last_name: f.lastName ?? '',
    is_staff: f.isStaff ?? false,
    is_superuser: f.isSuperuser ?? false,
  });
  await hooks.runBlocking(ctx, 'userBeforeCreate', proposed, ctx);
  const passwordHash = await hashPassword(f.password!);
  const user = await db
    .$transaction(async (tx) => {
      const created = await userRepository.create(tx, { ...f, username: f.username!, email: f.email!, passwordHash });
      await audit(tx, ctx, { action: 'create', objectType: 'user', objectId: created.uuid, changes: auditChanges(f) });
      await hooks.runBlocking(ctx, 'userWritten', tx, { type: 'POST_USER_CREATE', user: toHookUser(created) }, ctx);
      return created;
    }, SLUG_TX)
    .catch(translateUnique);
  await hooks.runAfter(ctx, 'userAfterCreate', Object.freeze(toHookUser(user)), ctx);
  return toUserAccount(user);
}

/** The attribute names and new values of a change, passwords reduced to "[changed]" by audit(). */
function auditChanges(f: UserFields): Record<string, unknown> {
  const names: Record<keyof UserFields, string> = {
    username: 'username',
    email: 'email',
    password: 'password',
    firstName: 'first_name',
    lastName: 'last_name',
    isStaff: 'is_staff',
    isSuperuser: 'is_superuser',
    isActive: 'is_active',
  };
  return Object.fromEntries(
    Object.entries(f)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [names[k as keyof UserFields], v]),
  );
}

function checkPrivilegedChanges(ctx: RequestContext, user: User, f: UserFields): void {
  const me = ctx.principal as UserPrincipal;
  const flagChange =
    (f.isStaff !== undefined && f.isStaff !== user.isStaff) || (f.isSuperuser !== undefined && f.isSuperuser !== user.isSuperuser);
  if (flagChange && !me.isSuperuser) throw errors.permissionDenied('Only a superuser may change staff or superuser status.');
  if (f.isActive !== undefined && f.isActive !== user.isActive && !isOperator(ctx)) {
    throw errors.permissionDenied('Only staff may activate or deactivate a user.');
  }
}

/**
 * Changing one's own password or e-mail needs the current password (DECISIONS §4), so that a
 * stolen access token cannot take the account over. 400 naming `current_password` otherwise.
 */
async function checkCurrentPassword(ctx: RequestContext, user: User, f: UserFields, body: unknown): Promise<void> {
  const self = ctx.principal.kind === 'user' && ctx.principal.userId === user.id;
  const emailChange = f.email !== undefined && f.email.toLowerCase() !== user.email.toLowerCase();
  if (!self || (f.password === undefined && !emailChange)) return;
  const given = (body as Record<string, unknown>).current_password;
  if (typeof given !== 'string' || given === '') {
    throw errors.field('current_password', 'Your current password is required to change your password or e-mail address.');
  }
  if (!(await verifyPassword(user.passwordHash, given))) throw errors.field('current_password', 'The current password is not correct.');
}

/**
 * Whether a change retires the user's existing tokens and sessions: a new password (one's own
 * or an administrator's reset) or a deactivation. Reactivation does not bring them back.
 */
const revokesTokens = (user: User, f: UserFields): boolean => f.password !== undefined || (f.isActive === false && user.isActive);

/** PUT (`replace`: username and email required) or PATCH (`patch`). */
export async function updateUser(ctx: RequestContext, ref: string, body: unknown, mode: 'replace' | 'patch'): Promise<UserAccount> {
  const user = await requireChangeableUser(ctx, ref);
  const f = parseUserFields(body, mode);
  checkPrivilegedChanges(ctx, user, f);
  await checkCurrentPassword(ctx, user, f, body);
  const revoke = revokesTokens(user, f);
  const db = ctx.platform.prisma;
  if (f.username !== undefined && f.username !== user.username && (await userRepository.usernameTaken(db, f.username))) {
    throw conflictUsername();
  }
  if (f.email !== undefined && f.email.toLowerCase() !== user.email.toLowerCase()) await checkEmailFree(ctx, f.email, user.id);
  const passwordHash = f.password !== undefined ? await hashPassword(f.password) : undefined;
  const { password: _password, ...data } = f;
  const updated = await db
    .$transaction(async (tx) => {
      const u = await userRepository.update(tx, user.id, { ...data, ...(passwordHash ? { passwordHash } : {}) }, { revokeTokens: revoke });
      if (revoke) await ctx.platform.hooks.runBlocking(ctx, 'userTokensRevoked', tx, { id: u.id, uuid: u.uuid });
      await audit(tx, ctx, { action: 'update', objectType: 'user', objectId: u.uuid, changes: auditChanges(f) });
      const event = { type: 'POST_USER_UPDATE', user: toHookUser(u), previous: toHookUser(user) } as const;
      await ctx.platform.hooks.runBlocking(ctx, 'userWritten', tx, event, ctx);
      return u;
    })
    .catch(translateUnique);
  // Flags and activity are read from the auth cache on every request: refresh it now.
  ctx.platform.invalidation.publish({ kind: 'user', uuid: user.uuid });
  await ctx.platform.hooks.runAfter(ctx, 'userAfterUpdate', Object.freeze(toHookUser(updated)), Object.freeze(toHookUser(user)), ctx);
  return toUserAccount(updated);
}

/** Soft delete: the record and its audit trail stay; sign-in and existing tokens stop. */
/** Soft-deletes a user; answers the user as they are now (inactive). */
export async function deleteUser(ctx: RequestContext, ref: string): Promise<UserAccount> {
  const user = await requireChangeableUser(ctx, ref);
  const deleted = await ctx.platform.prisma.$transaction(async (tx) => {
    const u = await userRepository.softDelete(tx, user.id);
    await ctx.platform.hooks.runBlocking(ctx, 'userTokensRevoked', tx, { id: u.id, uuid: u.uuid });
    await audit(tx, ctx, { action: 'delete', objectType: 'user', objectId: u.uuid, changes: { is_active: false, is_deleted: true } });
    await ctx.platform.hooks.runBlocking(ctx, 'userWritten', tx, { type: 'POST_USER_DELETE', user: toHookUser(u) }, ctx);
    return u;
  });
  ctx.platform.invalidation.publish({ kind: 'user', uuid: user.uuid });
  await ctx.platform.hooks.runAfter(ctx, 'userAfterDelete', Object.freeze(toHookUser(deleted)), ctx);
  return toUserAccount(deleted);
}

/** `POST /users/{user}/restore/` (staff): undoes a soft delete. */
export async function restoreUser(ctx: RequestContext, ref: string): Promise<UserAccount> {
  // Deleted accounts are invisible to non-staff: they get 404 from the lookup, before any 403.
  const user = await requireChangeableUser(ctx, ref, true);
  if (!isOperator(ctx)) throw errors.permissionDenied();
  const restored = await ctx.platform.prisma.$transaction(async (tx) => {
    const u = await userRepository.restore(tx, user.id);
    await audit(tx, ctx, { action: 'restore', objectType: 'user', objectId: u.uuid, changes: { is_active: true, is_deleted: false } });
    return u;
  });
  ctx.platform.invalidation.publish({ kind: 'user', uuid: user.uuid });
  return toUserAccount(restored);
}
