// Refresh-token families and revoked access tokens. The only code touching those tables.
import type pg from 'pg';
import type { AuthUser } from '../core/auth-cache.js';
import type { User } from '../tenancy/tenancy.api.js';

export type { AuthUser };

export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export const USER_COLUMNS =
  'u.id, u.uuid, u.username, u.is_staff, u.is_superuser, u.slug, u.email, u.first_name, u.last_name, u.created_at, u.last_login';

export function toAuthUser(r: Record<string, unknown>): AuthUser {
  return {
    id: r.id as number,
    uuid: r.uuid as string,
    username: r.username as string,
    isStaff: r.is_staff as boolean,
    isSuperuser: r.is_superuser as boolean,
    row: {
      slug: r.slug as string,
      email: r.email as string,
      firstName: r.first_name as string,
      lastName: r.last_name as string,
      createdAt: r.created_at as Date,
      lastLogin: (r.last_login as Date | null) ?? null,
    },
  };
}

/** The same fields from a Prisma user record. */
export const authUserFromRecord = (u: User): AuthUser => ({
  id: u.id,
  uuid: u.uuid,
  username: u.username,
  isStaff: u.isStaff,
  isSuperuser: u.isSuperuser,
  row: { slug: u.slug, email: u.email, firstName: u.firstName, lastName: u.lastName, createdAt: u.createdAt, lastLogin: u.lastLogin },
});

export interface NewRefreshToken {
  jti: string;
  familyId: string;
  userId: number;
  expiresAt: Date;
}

/** Why a refresh token could not be used. */
export type RefreshRefusal = 'unknown' | 'reused' | 'user_inactive';

export const tokenRepository = {
  /** The active user with this uuid, or null (inactive, soft-deleted or absent). */
  async activeUserByUuid(db: Queryable, uuid: string): Promise<AuthUser | null> {
    const { rows } = await db.query(`SELECT ${USER_COLUMNS} FROM users u WHERE u.uuid = $1 AND u.is_active AND NOT u.is_deleted`, [uuid]);
    return rows[0] ? toAuthUser(rows[0]) : null;
  },

  async insertRefresh(db: Queryable, t: NewRefreshToken): Promise<void> {
    await db.query('INSERT INTO refresh_tokens (jti, family_id, user_id, expires_at) VALUES ($1, $2, $3, $4)', [
      t.jti,
      t.familyId,
      t.userId,
      t.expiresAt,
    ]);
  },

  /**
   * Marks the token used and returns its family and (active) user. The conditional UPDATE is
   * the race guard: of two concurrent uses exactly one sees used_at IS NULL.
   */
  async markUsed(db: Queryable, jti: string): Promise<{ familyId: string; user: AuthUser } | null> {
    const { rows } = await db.query(
      `UPDATE refresh_tokens r SET used_at = now()
         FROM users u
        WHERE r.jti = $1 AND r.used_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > now()
          AND u.id = r.user_id AND u.is_active AND NOT u.is_deleted
       RETURNING r.family_id, ${USER_COLUMNS}`,
      [jti],
    );
    return rows[0] ? { familyId: rows[0].family_id, user: toAuthUser(rows[0]) } : null;
  },

  /** Blacklists a token that is still usable; false when it was not. */
  async revokeIfUsable(db: Queryable, jti: string): Promise<string | null> {
    const { rows } = await db.query(
      `UPDATE refresh_tokens SET revoked_at = now()
        WHERE jti = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
       RETURNING family_id`,
      [jti],
    );
    return rows[0]?.family_id ?? null;
  },

  /** After a failed use: why it failed (absent, already used/blacklisted, user gone). */
  async refusal(db: Queryable, jti: string): Promise<{ reason: RefreshRefusal; familyId?: string }> {
    const { rows } = await db.query(
      `SELECT r.family_id, (r.used_at IS NOT NULL OR r.revoked_at IS NOT NULL) AS spent,
              (u.is_active AND NOT u.is_deleted) AS user_active
         FROM refresh_tokens r JOIN users u ON u.id = r.user_id
        WHERE r.jti = $1`,
      [jti],
    );
    const r = rows[0];
    if (!r) return { reason: 'unknown' };
    return { reason: r.spent ? 'reused' : r.user_active ? 'unknown' : 'user_inactive', familyId: r.family_id };
  },

  async revokeFamily(db: Queryable, familyId: string): Promise<number> {
    const res = await db.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [familyId]);
    return res.rowCount ?? 0;
  },

  async isUsable(db: Queryable, jti: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `SELECT 1 FROM refresh_tokens r JOIN users u ON u.id = r.user_id
        WHERE r.jti = $1 AND r.used_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > now()
          AND u.is_active AND NOT u.is_deleted`,
      [jti],
    );
    return (rowCount ?? 0) > 0;
  },

  async revokeAccess(db: Queryable, jti: string, expiresAt: Date): Promise<void> {
    // Rows are useless once the token would have expired anyway; prune them here.
    await db.query('DELETE FROM revoked_access_tokens WHERE expires_at < now()');
    await db.query('INSERT INTO revoked_access_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING', [jti, expiresAt]);
  },

  async revokedAccessJtis(db: Queryable): Promise<string[]> {
    const { rows } = await db.query('SELECT jti FROM revoked_access_tokens WHERE expires_at > now()');
    return rows.map((r) => r.jti as string);
  },
};
