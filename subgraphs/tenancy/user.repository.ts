// Users in the platform database. The only module code that touches the users table.
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import type { Db, Tx } from '../core/db.js';
import type { OrderBy, PageRequest } from '../core/listing.js';
import { slugify, withUniqueSlug } from '../core/slug.js';
import { isUniqueViolation } from '../core/db.js';
import type { User } from '../../prisma/generated/client.js';
import type { SqlFragment } from './access.service.js';

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

/** `me` names the caller in every /users/{user}/ path, so no user may have it as a slug. */
export const RESERVED_USER_SLUGS = new Set(['me']);

function userSlugBase(username: string): string {
  const base = slugify(username, 'user');
  return RESERVED_USER_SLUGS.has(base) ? `${base}-user` : base;
}

const isUsernameConflict = (e: unknown) => JSON.stringify((e as { meta?: unknown })?.meta ?? '').includes('username');
/** The partial unique index of migration 0009: one active account per e-mail (case-insensitive). */
const isEmailConflict = (e: unknown) =>
  isUniqueViolation(e, 'users_active_email_key') ||
  (isUniqueViolation(e) && /users_active_email_key|lower\(email\)/.test(JSON.stringify((e as { meta?: unknown })?.meta ?? '')));

const USER_COLUMNS = `id, uuid, slug, username, email, password_hash, first_name, last_name, is_staff, is_superuser,
  is_active, is_deleted, last_login, created_at, updated_at, deleted_at, token_version`;

export const rowToUser = (r: Record<string, any>): User => ({
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
  tokenVersion: r.token_version,
});

/** Which users a list or read may return. `viewerId` null: every user (staff). */
export interface UserFilter {
  viewerId: number | null;
  includeDeleted: boolean;
  isActive?: boolean;
  search?: string;
  organization?: { uuid: string } | { slug: string };
  ref?: { uuid: string } | { slug: string };
}

const like = (s: string) => `%${s.replace(/[\\%_]/g, '\\$&')}%`;

function userWhere(f: UserFilter): SqlFragment {
  const params: unknown[] = [];
  const clauses: string[] = [];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(params.length));
  };
  if (!f.includeDeleted) clauses.push('NOT u.is_deleted');
  // Non-staff see themselves and the members of the (live) organizations they belong to.
  if (f.viewerId !== null) {
    add(
      (
        n,
      ) => `(u.id = $${n} OR EXISTS (SELECT 1 FROM memberships mine JOIN memberships theirs ON theirs.organization_id = mine.organization_id
        JOIN organizations vo ON vo.id = mine.organization_id WHERE mine.user_id = $${n} AND theirs.user_id = u.id AND NOT vo.is_deleted))`,
      f.viewerId,
    );
  }
  if (f.isActive !== undefined) add((n) => `u.is_active = $${n}`, f.isActive);
  if (f.search) {
    add((n) => `(u.username ILIKE $${n} OR u.email ILIKE $${n} OR u.first_name ILIKE $${n} OR u.last_name ILIKE $${n})`, like(f.search));
  }
  if (f.organization) {
    const [col, value] = 'uuid' in f.organization ? ['oo.uuid', f.organization.uuid] : ['oo.slug', f.organization.slug];
    add(
      (n) => `EXISTS (SELECT 1 FROM memberships om JOIN organizations oo ON oo.id = om.organization_id
        WHERE om.user_id = u.id AND NOT oo.is_deleted AND ${col} = $${n}${col === 'oo.uuid' ? '::uuid' : ''})`,
      value,
    );
  }
  if (f.ref && 'uuid' in f.ref) add((n) => `u.uuid = $${n}::uuid`, f.ref.uuid);
  if (f.ref && 'slug' in f.ref) add((n) => `u.slug = $${n}`, f.ref.slug);
  return { sql: clauses.length ? clauses.join(' AND ') : 'TRUE', params };
}

function createInTransaction(tx: Tx, data: NewUser): Promise<User> {
  return withUniqueSlug({
    base: userSlugBase(data.username),
    taken: async (base) => (await tx.user.findMany({ where: { slug: { startsWith: base } }, select: { slug: true } })).map((u) => u.slug),
    isSlugConflict: (e) =>
      !isUsernameConflict(e) && !isEmailConflict(e) && JSON.stringify((e as { meta?: unknown })?.meta ?? String(e)).includes('slug'),
    insert: async (slug) => {
      await tx.$executeRawUnsafe('SAVEPOINT user_slug');
      try {
        const user = await tx.user.create({
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
        });
        await tx.$executeRawUnsafe('RELEASE SAVEPOINT user_slug');
        return user;
      } catch (e) {
        await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT user_slug');
        throw e;
      }
    },
  });
}

export const userRepository = {
  async list(pool: pg.Pool, f: UserFilter, order: OrderBy[], page: PageRequest): Promise<{ rows: User[]; count: number }> {
    const w = userWhere(f);
    const orderSql = [...order.map((o) => `u.${o.column} ${o.desc ? 'DESC' : 'ASC'} NULLS LAST`), 'u.id ASC'].join(', ');
    const { rows, count } = await queryPage<Record<string, any>>(pool, {
      select: USER_COLUMNS,
      from: 'FROM users u',
      where: w,
      orderBy: orderSql,
      page,
    });
    return { rows: rows.map(rowToUser), count };
  },

  async findOne(pool: pg.Pool, f: UserFilter): Promise<User | null> {
    const w = userWhere(f);
    const { rows } = await pool.query(`SELECT ${USER_COLUMNS} FROM users u WHERE ${w.sql} LIMIT 1`, w.params);
    return rows[0] ? rowToUser(rows[0]) : null;
  },

  update: (
    tx: Tx,
    id: number,
    data: Partial<Pick<User, 'username' | 'email' | 'passwordHash' | 'firstName' | 'lastName' | 'isStaff' | 'isSuperuser' | 'isActive'>>,
    /** Move the token version on: every token issued before stops working. */
    opts: { revokeTokens?: boolean } = {},
  ) => tx.user.update({ where: { id }, data: { ...data, ...(opts.revokeTokens ? { tokenVersion: { increment: 1 } } : {}) } }),

  softDelete: (tx: Tx, id: number) =>
    tx.user.update({
      where: { id },
      data: { isActive: false, isDeleted: true, deletedAt: new Date(), tokenVersion: { increment: 1 } },
    }),

  restore: (tx: Tx, id: number) => tx.user.update({ where: { id }, data: { isActive: true, isDeleted: false, deletedAt: null } }),

  /** An active user by slug, UUID or username (group membership bodies accept any of them). */
  async findActiveByRef(pool: pg.Pool, ref: string): Promise<User | null> {
    const { rows } = await pool.query(
      `SELECT ${USER_COLUMNS} FROM users u WHERE u.is_active AND NOT u.is_deleted
          AND (u.slug = $1 OR u.username = $1 OR (u.uuid::text = lower($1)))
        ORDER BY (u.uuid::text = lower($1)) DESC, (u.slug = $1) DESC LIMIT 1`,
      [ref],
    );
    return rows[0] ? rowToUser(rows[0]) : null;
  },

  isUsernameConflict,
  isEmailConflict,

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
  findActiveByUsername: (db: Tx, username: string) => db.user.findFirst({ where: { username, isActive: true, isDeleted: false } }),
  findActiveByEmail: (db: Tx, email: string) =>
    db.user.findFirst({ where: { email: { equals: email, mode: 'insensitive' }, isActive: true, isDeleted: false } }),
  anySuperuser: async (db: Tx) => (await db.user.count({ where: { isSuperuser: true, isDeleted: false } })) > 0,
  usernameTaken: async (db: Tx, username: string) => (await db.user.count({ where: { username } })) > 0,

  /**
   * Creates a user (and an empty profile) with a unique slug generated from the username.
   * Works on the root client (in a transaction of its own) and inside a caller's transaction:
   * each slug attempt runs in a savepoint, because a unique violation would otherwise abort
   * the whole transaction and make the retry impossible.
   */
  create(db: Db | Tx, data: NewUser): Promise<User> {
    if (typeof (db as Db).$transaction === 'function') return (db as Db).$transaction((tx) => createInTransaction(tx, data));
    return createInTransaction(db, data);
  },

  touchLastLogin: (db: Tx, id: number) => db.user.update({ where: { id }, data: { lastLogin: new Date() } }),
};
