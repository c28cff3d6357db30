// Users as the API shows them, and the first-run superuser.
import type { Logger } from 'pino';
import type { RequestContext } from '../core/context.js';
import type { Tx } from '../core/db.js';
import { errors } from '../core/errors.js';
import { hashPassword } from './password.js';
import { userRepository, type User } from './user.repository.js';

export interface UserView {
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

export function toUserView(u: User): UserView {
  return {
    uuid: u.uuid,
    slug: u.slug,
    username: u.username,
    email: u.email,
    first_name: u.firstName,
    last_name: u.lastName,
    is_staff: u.isStaff,
    is_superuser: u.isSuperuser,
    is_active: u.isActive && !u.isDeleted,
    date_joined: u.createdAt.toISOString(),
    last_login: u.lastLogin ? u.lastLogin.toISOString() : null,
  };
}

/** The signed-in caller (`/api/users/me/`, GraphQL `me`). */
export async function getMe(ctx: RequestContext): Promise<UserView> {
  if (ctx.principal.kind !== 'user') throw errors.notAuthenticated();
  const user = await userRepository.findActiveById(ctx.platform.pool, ctx.principal.userId);
  if (!user) throw errors.authenticationFailed('User not found or inactive.');
  return toUserView(user);
}

export interface SuperuserInput {
  username: string;
  password: string;
  email: string;
}

/** Creates a superuser. Used by the CLI and by the first start. */
export async function createSuperuser(db: Tx, input: SuperuserInput): Promise<User> {
  if (!input.username.trim()) throw errors.field('username', 'This field may not be blank.');
  if (input.password.length < 8) throw errors.field('password', 'Use at least 8 characters.');
  if (await userRepository.usernameTaken(db, input.username)) throw errors.conflict(`User "${input.username}" already exists.`);
  return userRepository.create(db, {
    username: input.username,
    email: input.email,
    passwordHash: await hashPassword(input.password),
    isStaff: true,
    isSuperuser: true,
  });
}

/** At start: when no superuser exists and ADMIN_* are configured, create one. */
export async function ensureFirstSuperuser(db: Tx, admin: SuperuserInput | null, log: Logger): Promise<void> {
  if (!admin || (await userRepository.anySuperuser(db))) return;
  if (await userRepository.usernameTaken(db, admin.username)) {
    log.warn({ username: admin.username }, 'ADMIN_USERNAME names an existing user who is not a superuser; not changed');
    return;
  }
  const user = await createSuperuser(db, admin);
  log.info({ username: user.username }, 'first superuser created');
}
