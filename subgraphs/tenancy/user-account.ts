// A user as the tenancy services answer it (the domain object every transport renders).
import type { HookUser } from '../core/hooks.js';
import type { User } from './user.repository.js';

/**
 * A user as the services answer it: camelCase, dates as Date, never the password hash.
 * `isActive` is false for a deactivated or soft-deleted account. Each transport renders its own
 * view (REST: users-views.ts; GraphQL: tenancy.resolvers.ts).
 */
export interface UserAccount {
  uuid: string;
  slug: string;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  isStaff: boolean;
  isSuperuser: boolean;
  isActive: boolean;
  dateJoined: Date;
  lastLogin: Date | null;
}

export const toUserAccount = (u: User): UserAccount => ({
  uuid: u.uuid,
  slug: u.slug,
  username: u.username,
  email: u.email,
  firstName: u.firstName,
  lastName: u.lastName,
  isStaff: u.isStaff,
  isSuperuser: u.isSuperuser,
  isActive: u.isActive && !u.isDeleted,
  dateJoined: u.createdAt,
  lastLogin: u.lastLogin,
});

/**
 * The API's user view (snake_case, ISO dates): what REST answers (users-views.ts `toUserRest`)
 * and what hook handlers and user events receive (DECISIONS §7) — one shape, one mapper.
 */
export const toUserView = (u: UserAccount): HookUser => ({
  uuid: u.uuid,
  slug: u.slug,
  username: u.username,
  email: u.email,
  first_name: u.firstName,
  last_name: u.lastName,
  is_staff: u.isStaff,
  is_superuser: u.isSuperuser,
  is_active: u.isActive,
  date_joined: u.dateJoined.toISOString(),
  last_login: u.lastLogin ? u.lastLogin.toISOString() : null,
});
