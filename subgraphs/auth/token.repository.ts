// Refresh-token families and revoked access tokens. The only code touching those tables.
import type pg from 'pg';
import type { AuthUser } from '../core/auth-cache.js';
import type { User } from '../tenancy/tenancy.api.js';

export type { AuthUser };

export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export const USER_COLUMNS =
  'u.id, u.uuid, u.username, u.is_staff, u.is_superuser, u.slug, u.email, u.first_name, u.last_name, u.created_at, u.last_login, u.token_version';

export function toAuthUser(r: Record<string, unknown>): AuthUser {
  return {
    id: r.id as number,
    uuid: r.uuid as string,
    username: r.username as string,
    isStaff: r.is_staff as boolean,
    isSuperuser: r.is_superuser as boolean,
    tokenVersion: r.token_version as number,
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
  tokenVersion: u.tokenVersion,
  row: { slug: u.slug, email: u.email, firstName: u.firstName, lastName: u.lastName, createdAt: u.createdAt, lastLogin: u.lastLogin },
});

export interface NewRefreshToken {
  jti: string;
  familyId: string;
  userId: number;
  expiresAt: Date;
}

/** Why a refresh token could not be used. */
export type RefreshRefusal = 'unknown' | 'reused' | 'user_inactive' | 'revoked';

/** Runs one statement: a pg pool or client, or a Prisma transaction (see execOf). */
export type Exec = (sql: string, params: unknown[]) => Promise<unknown>;
export const pgExec =
  (db: Queryable): Exec =>
  (sql, params) =>
    db.query(sql, params);

/** Rows one purge statement deletes at most (short statements, short locks). */
export const PURGE_BATCH = 5000;

const PURGE_SQL = (table: string) =>
  `WITH gone AS (DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE expires_at < now() LIMIT $1) RETURNING 1)
   SELECT count(*)::int AS n FROM gone`;

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
  async markUsed(db: Queryable, jti: string, tokenVersion: number): Promise<{ familyId: string; user: AuthUser } | null> {
    const { rows } = await db.query(
      `UPDATE refresh_tokens r SET used_at = now()
         FROM users u
        WHERE r.jti = $1 AND r.used_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > now()
          AND u.id = r.user_id AND u.is_active AND NOT u.is_deleted AND u.token_version = $2
       RETURNING r.family_id, ${USER_COLUMNS}`,
      [jti, tokenVersion],
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

  /**
   * After a failed use: why it failed (absent or blacklisted by a logout; issued before the
   * user's tokens were revoked; already used by a rotation, i.e. a reuse; user gone).
   */
  async refusal(
    db: Queryable,
    jti: string,
    tokenVersion: number,
  ): Promise<{ reason: RefreshRefusal; familyId?: string; userId?: number; userUuid?: string }> {
    const { rows } = await db.query(
      `SELECT r.family_id, r.used_at IS NOT NULL AS spent,
              (u.is_active AND NOT u.is_deleted) AS user_active, u.token_version, u.id AS user_id, u.uuid AS user_uuid
         FROM refresh_tokens r JOIN users u ON u.id = r.user_id
        WHERE r.jti = $1`,
      [jti],
    );
    const r = rows[0];
    if (!r) return { reason: 'unknown' };
    const who = { familyId: r.family_id as string, userId: r.user_id as number, userUuid: r.user_uuid as string };
    if (!r.user_active) return { reason: 'user_inactive', ...who };
    // Revoked with every other token of its user (password change, reuse elsewhere): not a reuse.
    if (r.token_version !== tokenVersion) return { reason: 'revoked', ...who };
    return { reason: r.spent ? 'reused' : 'unknown', ...who };
  },

  /**
   * Every refresh token and session of a user stops working (the caller bumps the user's
   * token version in the same transaction, which retires the access tokens).
   */
  async revokeRefreshAndSessions(exec: Exec, userId: number): Promise<void> {
    await exec('UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
    await exec('DELETE FROM sessions WHERE user_id = $1', [userId]);
  },

  /** Reuse detection: the user's token version moves on and every token and session stops. */
  async revokeAllForUser(exec: Exec, userId: number): Promise<void> {
    await exec('UPDATE users SET token_version = token_version + 1 WHERE id = $1', [userId]);
    await tokenRepository.revokeRefreshAndSessions(exec, userId);
  },

  async revokeFamily(db: Queryable, familyId: string): Promise<number> {
    const res = await db.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [familyId]);
    return res.rowCount ?? 0;
  },

  async isUsable(db: Queryable, jti: string, tokenVersion: number): Promise<boolean> {
    const { rowCount } = await db.query(
      `SELECT 1 FROM refresh_tokens r JOIN users u ON u.id = r.user_id
        WHERE r.jti = $1 AND r.used_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > now()
          AND u.is_active AND NOT u.is_deleted AND u.token_version = $2`,
      [jti, tokenVersion],
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

  /**
   * Deletes expired refresh tokens, sessions and access-token revocations, in batches of
   * PURGE_BATCH (at most `maxBatches` per table). An expired token is refused by its signature
   * check before any row is read, so its row serves nothing; a family's live tokens stay.
   */
  async purgeExpired(db: Queryable, maxBatches = 100): Promise<{ refreshTokens: number; sessions: number; revokedAccess: number }> {
    const purge = async (table: string) => {
      let total = 0;
      for (let i = 0; i < maxBatches; i++) {
        const n = (await db.query<{ n: number }>(PURGE_SQL(table), [PURGE_BATCH])).rows[0].n;
        total += n;
        if (n < PURGE_BATCH) break;
      }
      return total;
    };
    return {
      refreshTokens: await purge('refresh_tokens'),
      sessions: await purge('sessions'),
      revokedAccess: await purge('revoked_access_tokens'),
    };
  },
};
