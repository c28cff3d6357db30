// Sessions, API keys and social accounts: the only code touching those tables.
import type { ApiKeyRecord, AuthUser, SessionRecord } from '../core/auth-cache.js';
import { type Queryable, USER_COLUMNS, toAuthUser } from './token.repository.js';

export const authRepository = {
  async insertSession(db: Queryable, keyHash: string, userId: number, csrfToken: string, expiresAt: Date): Promise<void> {
    await db.query('INSERT INTO sessions (key_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)', [
      keyHash,
      userId,
      csrfToken,
      expiresAt,
    ]);
  },

  /** A live session of an active user. */
  async findSession(db: Queryable, keyHash: string): Promise<SessionRecord | null> {
    const { rows } = await db.query(
      `SELECT s.csrf_token, s.expires_at, ${USER_COLUMNS}
         FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.key_hash = $1 AND s.expires_at > now() AND u.is_active AND NOT u.is_deleted`,
      [keyHash],
    );
    const r = rows[0];
    return r ? { user: toAuthUser(r), csrfToken: r.csrf_token, expiresAt: r.expires_at } : null;
  },

  async deleteSession(db: Queryable, keyHash: string): Promise<void> {
    // Expired sessions of anyone are garbage; removing them here keeps the table small.
    await db.query('DELETE FROM sessions WHERE key_hash = $1 OR expires_at < now()', [keyHash]);
  },

  /** A key that is not revoked, of an app that is active, on a site that is live. */
  async findApiKey(db: Queryable, keyHash: string): Promise<ApiKeyRecord | null> {
    const { rows } = await db.query(
      `SELECT k.id, k.app_id, a.site_id
         FROM api_keys k
         JOIN apps a ON a.id = k.app_id
         JOIN sites s ON s.id = a.site_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL
          AND a.is_active AND NOT a.is_deleted AND s.is_active AND NOT s.is_deleted`,
      [keyHash],
    );
    const r = rows[0];
    return r ? { keyId: r.id, appId: r.app_id, siteId: r.site_id } : null;
  },

  async touchApiKey(db: Queryable, keyId: number): Promise<void> {
    await db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [keyId]);
  },

  /** The user linked to (provider, subject), with whether that user may still sign in. */
  async findSocialUser(db: Queryable, provider: string, subject: string): Promise<{ user: AuthUser; active: boolean } | null> {
    const { rows } = await db.query(
      `SELECT ${USER_COLUMNS}, (u.is_active AND NOT u.is_deleted) AS active
         FROM social_accounts sa JOIN users u ON u.id = sa.user_id
        WHERE sa.provider = $1 AND sa.subject = $2`,
      [provider, subject],
    );
    return rows[0] ? { user: toAuthUser(rows[0]), active: rows[0].active } : null;
  },

  /** Links an identity; false when (provider, subject) was linked meanwhile. */
  async linkSocial(db: Queryable, provider: string, subject: string, userId: number, email: string): Promise<boolean> {
    const res = await db.query(
      `INSERT INTO social_accounts (provider, subject, user_id, email) VALUES ($1, $2, $3, $4)
       ON CONFLICT (provider, subject) DO NOTHING`,
      [provider, subject, userId, email],
    );
    return (res.rowCount ?? 0) > 0;
  },
};
