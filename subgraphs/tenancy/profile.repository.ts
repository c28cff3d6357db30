// User profiles (one row per user; created with the user, or on the first write for users
// created before profiles existed or by another path).
import type { Tx } from '../core/db.js';
import type { UserProfile } from '../../prisma/generated/client.js';
import type { ProfileFields } from './user-input.js';

export type { UserProfile };

export const profileRepository = {
  find: (db: Tx, userId: number) => db.userProfile.findUnique({ where: { userId } }),

  upsert: (tx: Tx, userId: number, f: ProfileFields) => {
    const data = {
      ...(f.bio !== undefined ? { bio: f.bio } : {}),
      ...(f.avatarUrl !== undefined ? { avatarUrl: f.avatarUrl } : {}),
      ...(f.phone !== undefined ? { phone: f.phone } : {}),
      ...(f.timezone !== undefined ? { timezone: f.timezone } : {}),
      ...(f.locale !== undefined ? { locale: f.locale } : {}),
      ...(f.attributes !== undefined ? { attributes: f.attributes as object } : {}),
    };
    return tx.userProfile.upsert({ where: { userId }, create: { userId, ...data }, update: data });
  },
};
