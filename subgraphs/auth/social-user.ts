// Which platform user an external identity signs in as: the linked one; else the active
// user with the same e-mail, when the provider says the address is verified; else a new
// user without a usable password.
import crypto from 'node:crypto';
import { isUniqueViolation } from '../core/db.js';
import { errors } from '../core/errors.js';
import type { Platform } from '../core/platform.js';
import { userRepository } from '../tenancy/tenancy.api.js';
import { authRepository } from './auth.repository.js';
import { authUserFromRecord, type AuthUser } from './token.repository.js';

export interface ExternalIdentity {
  provider: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  preferredUsername: string | null;
  givenName: string | null;
  familyName: string | null;
}

function usernameBase(id: ExternalIdentity): string {
  const raw = id.preferredUsername || id.email?.split('@')[0] || `${id.provider}-user`;
  const clean = raw.replace(/[^A-Za-z0-9_.@+-]/g, '').slice(0, 120);
  return clean || `${id.provider}-user`;
}

async function freeUsername(platform: Platform, base: string): Promise<string> {
  if (!(await userRepository.usernameTaken(platform.prisma, base))) return base;
  for (let i = 0; i < 5; i++) {
    const candidate = `${base}-${crypto.randomBytes(3).toString('hex')}`;
    if (!(await userRepository.usernameTaken(platform.prisma, candidate))) return candidate;
  }
  throw errors.conflict('Could not choose a free username for this account.');
}

async function createLinkedUser(platform: Platform, id: ExternalIdentity): Promise<AuthUser | null> {
  const username = await freeUsername(platform, usernameBase(id));
  try {
    return await platform.prisma.$transaction(async (tx) => {
      const user = await userRepository.create(tx, {
        username,
        // An unverified address is not stored: a later sign-in elsewhere could otherwise be
        // linked by that address to this account (pre-account hijacking).
        email: id.emailVerified && id.email ? id.email : '',
        passwordHash: null,
        firstName: id.givenName ?? '',
        lastName: id.familyName ?? '',
      });
      await tx.socialAccount.create({ data: { provider: id.provider, subject: id.subject, userId: user.id, email: id.email ?? '' } });
      return authUserFromRecord(user);
    });
  } catch (e) {
    // A concurrent callback linked this identity (or took the name) first: the caller retries.
    if (isUniqueViolation(e)) return null;
    throw e;
  }
}

export async function resolveSocialUser(platform: Platform, id: ExternalIdentity): Promise<AuthUser> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const linked = await authRepository.findSocialUser(platform.pool, id.provider, id.subject);
    if (linked) {
      if (!linked.active) throw errors.authenticationFailed('This account is inactive.');
      return linked.user;
    }
    if (id.email && id.emailVerified) {
      const existing = await userRepository.findActiveByEmail(platform.prisma, id.email);
      if (existing) {
        await authRepository.linkSocial(platform.pool, id.provider, id.subject, existing.id, id.email);
        continue; // re-read: whoever linked first wins
      }
    }
    const created = await createLinkedUser(platform, id);
    if (created) return created;
  }
  throw errors.conflict('This account is being linked by another request; try again.');
}
