// Memberships of organizations joined with their users. Only active, undeleted users count
// as members: a soft-deleted user keeps the row (the audit trail names it) but is not listed.
import type pg from 'pg';
import type { Tx } from '../core/db.js';
import type { OrderBy, PageRequest } from '../core/listing.js';

/** A member: the membership (role, permissions, since when) with its user. */
export interface Member {
  membershipId: number;
  userId: number;
  uuid: string;
  slug: string;
  username: string;
  email: string;
  role: 'owner' | 'member';
  permissions: string[];
  joinedAt: Date;
}

export interface MemberFilter {
  search?: string;
  role?: string;
}

const COLUMNS = `m.id AS "membershipId", u.id AS "userId", u.uuid, u.slug, u.username, u.email, m.role, m.permissions,
  m.joined_at AS "joinedAt"`;
const FROM = `memberships m JOIN users u ON u.id = m.user_id AND u.is_active AND NOT u.is_deleted`;

export const memberRepository = {
  async list(pool: pg.Pool, orgId: number, f: MemberFilter, order: OrderBy[], page: PageRequest) {
    const params: unknown[] = [orgId];
    const clauses = ['m.organization_id = $1'];
    if (f.search) {
      params.push(`%${f.search.replace(/[\\%_]/g, '\\$&')}%`);
      clauses.push(`(u.username ILIKE $${params.length} OR u.email ILIKE $${params.length})`);
    }
    if (f.role) {
      params.push(f.role);
      clauses.push(`m.role = $${params.length}`);
    }
    const where = clauses.join(' AND ');
    const orderSql = [...order.map((o) => `${o.column} ${o.desc ? 'DESC' : 'ASC'}`), 'm.id ASC'].join(', ');
    const n = params.length;
    const [rows, count] = await Promise.all([
      pool.query<Member>(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY ${orderSql} LIMIT $${n + 1} OFFSET $${n + 2}`, [
        ...params,
        page.pageSize,
        page.offset,
      ]),
      pool.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${FROM} WHERE ${where}`, params),
    ]);
    return { rows: rows.rows, count: count.rows[0].count };
  },

  /** A member by the user's slug or UUID. */
  async findOne(pool: pg.Pool, orgId: number, ref: { uuid: string } | { slug: string }): Promise<Member | null> {
    const [col, value] = 'uuid' in ref ? ['u.uuid = $2::uuid', ref.uuid] : ['u.slug = $2', ref.slug];
    const { rows } = await pool.query<Member>(`SELECT ${COLUMNS} FROM ${FROM} WHERE m.organization_id = $1 AND ${col}`, [orgId, value]);
    return rows[0] ?? null;
  },

  /**
   * The active owners' user ids, their membership rows locked until the transaction ends:
   * two owners demoting or removing each other at once are serialized, so one always stays.
   */
  async lockOwners(tx: Tx, orgId: number): Promise<number[]> {
    const rows = await tx.$queryRawUnsafe<{ user_id: number }[]>(
      `SELECT m.user_id FROM ${FROM} WHERE m.organization_id = $1 AND m.role = 'owner' ORDER BY m.id FOR UPDATE OF m`,
      orgId,
    );
    return rows.map((r) => r.user_id);
  },

  async update(tx: Tx, membershipId: number, data: { role: string; permissions: string[] }): Promise<void> {
    await tx.membership.update({ where: { id: membershipId }, data });
  },

  /**
   * Removes the membership and what the user held through it: memberships of the
   * organization's groups, and object permissions granted to them on the organization or
   * one of its sites. Access they have elsewhere is untouched.
   */
  async remove(tx: Tx, orgId: number, userId: number): Promise<void> {
    await tx.$executeRawUnsafe('DELETE FROM memberships WHERE organization_id = $1 AND user_id = $2', orgId, userId);
    await tx.$executeRawUnsafe(
      `DELETE FROM group_members gm USING groups g WHERE gm.group_id = g.id AND g.organization_id = $1 AND gm.user_id = $2`,
      orgId,
      userId,
    );
    await tx.$executeRawUnsafe(
      `DELETE FROM object_permissions op WHERE op.user_id = $2
          AND ((op.object_type = 'organization' AND op.object_id = $1)
            OR (op.object_type = 'site' AND op.object_id IN (SELECT id FROM sites WHERE organization_id = $1)))`,
      orgId,
      userId,
    );
  },

  /**
   * Adds the user as a member (role member with `permissions`), or, when already one, adds
   * `permissions` to theirs and keeps their role.
   */
  async join(tx: Tx, orgId: number, userId: number, permissions: string[]): Promise<void> {
    await tx.$executeRawUnsafe(
      `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3::text[])
       ON CONFLICT (organization_id, user_id) DO UPDATE
         SET permissions = ARRAY(SELECT DISTINCT unnest(memberships.permissions || EXCLUDED.permissions) ORDER BY 1)`,
      orgId,
      userId,
      permissions,
    );
  },

  async isMember(db: Tx, orgId: number, userId: number): Promise<boolean> {
    return (await db.membership.count({ where: { organizationId: orgId, userId } })) > 0;
  },
};
