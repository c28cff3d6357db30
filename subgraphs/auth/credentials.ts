// Username and password sign-in, shared by the JWT and session login routes.
import { errors } from '../core/errors.js';
import type { Platform } from '../core/platform.js';
import { burnPasswordCheck, verifyPassword } from '../tenancy/tenancy.api.js';
import { userRepository } from '../tenancy/tenancy.api.js';
import { authUserFromRecord, type AuthUser } from './token.repository.js';

/** Reads required non-empty string fields from a JSON body (400 with field errors). */
export function stringFields<K extends string>(body: unknown, names: K[]): Record<K, string> {
  const src = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const missing: Record<string, string[]> = {};
  for (const n of names) {
    if (typeof src[n] !== 'string' || src[n] === '') missing[n] = ['This field is required.'];
  }
  if (Object.keys(missing).length) throw errors.invalid('Invalid input.', missing);
  return src as Record<K, string>;
}

const FAILED = 'No active account found with the given credentials.';

/** The active user with these credentials, or 401 authentication_failed. */
export async function checkCredentials(platform: Platform, username: string, password: string): Promise<AuthUser> {
  const user = await userRepository.findActiveByUsername(platform.prisma, username);
  if (!user) {
    // Same argon2 work as a wrong password, so response time does not reveal usernames.
    await burnPasswordCheck(password);
    throw errors.authenticationFailed(FAILED);
  }
  // A user without a password (social sign-in only) fails inside verifyPassword; burn the
  // time anyway so that case is not distinguishable either.
  if (!user.passwordHash) await burnPasswordCheck(password);
  if (!(await verifyPassword(user.passwordHash, password))) throw errors.authenticationFailed(FAILED);
  return authUserFromRecord(await userRepository.touchLastLogin(platform.prisma, user.id));
}
