// A user's profile (`/api/users/{user}/profile/`): readable and writable by the user and staff.
// A visible user's profile answers 403 to anyone else; an invisible user's, 404.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { audit } from './audit-log.js';
import { profileRepository, type UserProfile } from './profile.repository.js';
import { parseProfileFields } from './user-input.js';
import { findVisibleUser, isOperator, requireChangeableUser, requireUserPrincipal } from './user.service.js';

/** A user's profile as the services answer it; a user without a saved profile has the defaults. */
export interface Profile {
  userUuid: string;
  bio: string;
  avatarUrl: string;
  phone: string;
  timezone: string;
  locale: string;
  attributes: Record<string, unknown>;
}

const DEFAULTS = { bio: '', avatarUrl: '', phone: '', timezone: 'UTC', locale: 'en', attributes: {} };

function toProfile(
  userUuid: string,
  p: Pick<UserProfile, 'bio' | 'avatarUrl' | 'phone' | 'timezone' | 'locale' | 'attributes'> | null,
): Profile {
  const v = p ?? DEFAULTS;
  return {
    userUuid,
    bio: v.bio,
    avatarUrl: v.avatarUrl,
    phone: v.phone,
    timezone: v.timezone,
    locale: v.locale,
    attributes: (v.attributes ?? {}) as Record<string, unknown>,
  };
}

export async function getProfile(ctx: RequestContext, ref: string): Promise<Profile> {
  const me = requireUserPrincipal(ctx);
  const user = await findVisibleUser(ctx, ref);
  if (user.id !== me.userId && !isOperator(ctx)) throw errors.permissionDenied();
  return toProfile(user.uuid, await profileRepository.find(ctx.platform.prisma, user.id));
}

export async function updateProfile(ctx: RequestContext, ref: string, body: unknown): Promise<Profile> {
  const user = await requireChangeableUser(ctx, ref);
  const fields = parseProfileFields(body);
  const saved = await ctx.platform.prisma.$transaction(async (tx) => {
    const p = await profileRepository.upsert(tx, user.id, fields);
    // Attribute values may be anything a client stores: the audit records which keys changed.
    const { attributes, ...rest } = fields;
    const changes: Record<string, unknown> = { ...rest };
    if (attributes !== undefined) changes.attributes = Object.keys(attributes);
    await audit(tx, ctx, { action: 'update', objectType: 'user_profile', objectId: user.uuid, changes });
    return p;
  });
  return toProfile(user.uuid, saved);
}
