// Invitations to organizations, and the grants that accepting one applies. Only the SHA-256
// of a token is stored; the token itself exists in the answer to the inviter and in the mail.
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import type { Tx } from '../core/db.js';
import type { PageRequest } from '../core/listing.js';

export interface InvitationConfig {
  group: number[];
  site: { slug: string; permissions: string[] }[];
}

export interface InvitationRow {
  id: number;
  uuid: string;
  organizationId: number;
  inviteeIdentifier: string;
  permissions: string[];
  invitationConfig: InvitationConfig;
  /** As stored: a pending invitation past its expiry still reads `pending` here. */
  status: 'pending' | 'accepted' | 'declined' | 'revoked';
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  /** Username of the inviter. */
  invitedBy: string | null;
}

/** An invitation found by token, with what the invitee is shown of its organization. */
export interface TokenInvitationRow extends InvitationRow {
  organizationUuid: string;
  organizationSlug: string;
  organizationName: string;
}

/** `pending` in the table but past its expiry reads as `expired`. */
export type InvitationStatus = InvitationRow['status'] | 'expired';

const COLUMNS = `i.id, i.uuid, i.organization_id AS "organizationId", i.invitee_identifier AS "inviteeIdentifier", i.permissions,
  i.invitation_config AS "invitationConfig", i.status, i.expires_at AS "expiresAt", i.created_at AS "createdAt",
  i.updated_at AS "updatedAt", (SELECT u.username FROM users u WHERE u.id = i.invited_by_id) AS "invitedBy"`;

function statusClause(status: InvitationStatus | undefined, n: number): { sql: string; params: unknown[] } {
  if (!status) return { sql: 'TRUE', params: [] };
  if (status === 'expired') return { sql: `i.status = 'pending' AND i.expires_at <= now()`, params: [] };
  if (status === 'pending') return { sql: `i.status = 'pending' AND i.expires_at > now()`, params: [] };
  return { sql: `i.status = $${n}`, params: [status] };
}

export const invitationRepository = {
  async insert(
    tx: Tx,
    d: {
      organizationId: number;
      invitee: string;
      permissions: string[];
      config: InvitationConfig;
      tokenHash: string;
      expiresAt: Date;
      invitedById: number | null;
    },
  ): Promise<InvitationRow> {
    const rows = await tx.$queryRawUnsafe<InvitationRow[]>(
      `INSERT INTO invitations AS i (organization_id, invitee_identifier, permissions, invitation_config, token_hash, expires_at, invited_by_id)
       VALUES ($1, $2, $3::text[], $4::jsonb, $5, $6, $7) RETURNING ${COLUMNS}`,
      d.organizationId,
      d.invitee,
      d.permissions,
      JSON.stringify(d.config),
      d.tokenHash,
      d.expiresAt,
      d.invitedById,
    );
    return rows[0];
  },

  async list(pool: pg.Pool, orgId: number, status: InvitationStatus | undefined, page: PageRequest) {
    const s = statusClause(status, 2);
    const where = `i.organization_id = $1 AND ${s.sql}`;
    return queryPage<InvitationRow>(pool, {
      select: COLUMNS,
      from: 'FROM invitations i',
      where: { sql: where, params: [orgId, ...s.params] },
      orderBy: 'i.created_at DESC, i.id DESC',
      page,
    });
  },

  async findByUuid(pool: pg.Pool, orgId: number, uuid: string): Promise<InvitationRow | null> {
    const { rows } = await pool.query<InvitationRow>(
      `SELECT ${COLUMNS} FROM invitations i WHERE i.organization_id = $1 AND i.uuid = $2::uuid`,
      [orgId, uuid],
    );
    return rows[0] ?? null;
  },

  /** By token hash; invitations of a soft-deleted organization are not found. */
  async findByTokenHash(pool: pg.Pool, tokenHash: string): Promise<TokenInvitationRow | null> {
    const { rows } = await pool.query<TokenInvitationRow>(
      `SELECT ${COLUMNS}, o.uuid AS "organizationUuid", o.slug AS "organizationSlug", o.name AS "organizationName"
         FROM invitations i JOIN organizations o ON o.id = i.organization_id
        WHERE i.token_hash = $1 AND NOT o.is_deleted`,
      [tokenHash],
    );
    return rows[0] ?? null;
  },

  /** Whether a pending, unexpired invitation for this address exists in the organization. */
  async hasOpen(db: Tx, orgId: number, invitee: string): Promise<boolean> {
    const rows = await db.$queryRawUnsafe<{ n: number }[]>(
      `SELECT 1 AS n FROM invitations WHERE organization_id = $1 AND lower(invitee_identifier) = lower($2)
          AND status = 'pending' AND expires_at > now() LIMIT 1`,
      orgId,
      invitee,
    );
    return rows.length > 0;
  },

  /**
   * Moves a pending invitation to `to` (for accept and decline: only while unexpired). False
   * when it was not pending any more: of two concurrent uses, exactly one wins.
   */
  /**
   * Locks a pending invitation for the rest of the transaction: a concurrent accept waits here,
   * then finds it no longer pending. False when it is not pending (or gone).
   */
  async lockPending(tx: Tx, id: number): Promise<boolean> {
    const rows = await tx.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM invitations WHERE id = $1 AND status = 'pending' FOR UPDATE`, id);
    return rows.length === 1;
  },

  async transition(
    tx: Tx,
    id: number,
    to: 'accepted' | 'declined' | 'revoked',
    opts: { unexpired: boolean; acceptedById?: number },
  ): Promise<boolean> {
    const n = await tx.$executeRawUnsafe(
      `UPDATE invitations SET status = $2, accepted_by_id = COALESCE($3, accepted_by_id), updated_at = now()
        WHERE id = $1 AND status = 'pending' ${opts.unexpired ? 'AND expires_at > now()' : ''}`,
      id,
      to,
      opts.acceptedById ?? null,
    );
    return n === 1;
  },

  /** A new token and expiry for a pending (possibly expired) invitation; null when it is not pending. */
  async renew(tx: Tx, id: number, tokenHash: string, expiresAt: Date): Promise<InvitationRow | null> {
    const rows = await tx.$queryRawUnsafe<InvitationRow[]>(
      `UPDATE invitations i SET token_hash = $2, expires_at = $3, updated_at = now()
        WHERE i.id = $1 AND i.status = 'pending' RETURNING ${COLUMNS}`,
      id,
      tokenHash,
      expiresAt,
    );
    return rows[0] ?? null;
  },

  /** Which of `ids` are groups of the organization. */
  async groupsOf(pool: pg.Pool, orgId: number, ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const { rows } = await pool.query<{ id: number }>('SELECT id FROM groups WHERE organization_id = $1 AND id = ANY($2::int[])', [
      orgId,
      ids,
    ]);
    return rows.map((r) => r.id);
  },

  /** Live sites of the organization among `refs` (slugs or UUIDs, any case for a UUID). */
  async sitesOf(pool: pg.Pool, orgId: number, refs: string[]): Promise<{ id: number; uuid: string; slug: string }[]> {
    if (refs.length === 0) return [];
    const { rows } = await pool.query(
      `SELECT id, uuid::text AS uuid, slug FROM sites
        WHERE organization_id = $1 AND NOT is_deleted AND (slug = ANY($2::text[]) OR uuid::text = ANY($3::text[]))`,
      [orgId, refs, refs.map((r) => r.toLowerCase())],
    );
    return rows;
  },

  async addToGroups(tx: Tx, userId: number, groupIds: number[]): Promise<void> {
    if (groupIds.length === 0) return;
    await tx.$executeRawUnsafe(
      `INSERT INTO group_members (group_id, user_id) SELECT unnest($1::int[]), $2 ON CONFLICT DO NOTHING`,
      groupIds,
      userId,
    );
  },

  /** Object permissions on sites for the user, skipping those they already hold. */
  async grantSites(tx: Tx, userId: number, grants: { siteId: number; permission: string }[]): Promise<void> {
    if (grants.length === 0) return;
    await tx.$executeRawUnsafe(
      `INSERT INTO object_permissions (user_id, permission, object_type, object_id)
       SELECT $1, g.permission, 'site', g.site_id FROM unnest($2::int[], $3::text[]) AS g(site_id, permission)
        WHERE NOT EXISTS (SELECT 1 FROM object_permissions op WHERE op.user_id = $1 AND op.object_type = 'site'
                            AND op.object_id = g.site_id AND op.permission = g.permission)`,
      userId,
      grants.map((g) => g.siteId),
      grants.map((g) => g.permission),
    );
  },
};
