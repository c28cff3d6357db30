// Users in the platform database. The only module code that touches the users table.
import type pg from 'pg';
import type { Tx } from '../core/db.js';
import { slugify, withUniqueSlug } from '../core/slug.js';
import type { User } from '../../prisma/generated/client.js';

export type { User };

export interface NewUser {
  username: string;
  email: string;
  passwordHash: string | null;
  firstName?: string;
  lastName?: string;
  isStaff?: boolean;
  isSuperuser?: boolean;
}

const isUsernameConflict = (e: unknown) => JSON.stringify((e as { meta?: unknown })?.meta ?? '').includes('username');

const USER_COLUMNS = `id, uuid, slug, username, email, password_hash, first_name, last_name, is_staff, is_superuser,
  is_active, is_deleted, last_login, created_at, updated_at, deleted_at`;

const rowToUser = (r: Record<string, any>): User => ({
  id: r.id,
  uuid: r.uuid,
  slug: r.slug,
  username: r.username,
  email: r.email,
  passwordHash: r.password_hash,
  firstName: r.first_name,
  lastName: r.last_name,
  isStaff: r.is_staff,
  isSuperuser: r.is_superuser,
  isActive: r.is_active,
  isDeleted: r.is_deleted,
  lastLogin: r.last_login,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deletedAt: r.deleted_at,
});

export const userRepository = {
  /**
   * Hot path (every `/users/me/`): a prepared statement through pg, which costs about a
   * third of the same read through Prisma (bench/RESULTS.md).
   */
  async findActiveById(pool: pg.Pool, id: number): Promise<User | null> {
    const { rows } = await pool.query({
      name: 'user_active_by_id',
      text: `SELECT ${USER_COLUMNS} FROM users WHERE id = $1 AND is_active AND NOT is_deleted`,
      values: [id],
    });
    return rows[0] ? rowToUser(rows[0]) : null;
  },
  findActiveByUuid: (db: Tx, uuid: string) => db.user.findFirst({ where: { uuid, isActive: true, isDeleted: false } }),
  findActiveByUsername: (db: Tx, username: string) =>
    db.user.findFirst({ where: { username, isActive: true, isDeleted: false } }),
  findActiveByEmail: (db: Tx, email: string) =>
    db.user.findFirst({ where: { email: { equals: email, mode: 'insensitive' }, isActive: true, isDeleted: false } }),
  anySuperuser: async (db: Tx) => (await db.user.count({ where: { isSuperuser: true, isDeleted: false } })) > 0,
  usernameTaken: async (db: Tx, username: string) => (await db.user.count({ where: { username } })) > 0,

  /** Creates a user (and an empty profile) with a unique slug generated from the username. */
  create: (db: Tx, data: NewUser): Promise<User> =>
    withUniqueSlug({
      base: slugify(data.username, 'user'),
      taken: async (base) =>
        (await db.user.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } })).map((u) => u.slug),
      isSlugConflict: (e) => JSON.stringify((e as { meta?: unknown })?.meta ?? '').includes('slug') || (!isUsernameConflict(e) && String(e).includes('slug')),
      insert: (slug) =>
        db.user.create({
          data: {
            slug,
            username: data.username,
            email: data.email,
            passwordHash: data.passwordHash,
            firstName: data.firstName ?? '',
            lastName: data.lastName ?? '',
            isStaff: data.isStaff ?? false,
            isSuperuser: data.isSuperuser ?? false,
            profile: { create: {} },
          },
        }),
    }),

  touchLastLogin: (db: Tx, id: number) => db.user.update({ where: { id }, data: { lastLogin: new Date() } }),
};
