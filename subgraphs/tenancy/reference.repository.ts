// Batched reads by id of organizations, users and groups, for federation references:
// one query per entity type and request, whatever the number of references.
import type pg from 'pg';
import type { SqlFragment } from './access.service.js';
import type { OrganizationRow } from './organization.repository.js';

export interface UserRow {
  id: number;
  uuid: string;
  slug: string;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  isStaff: boolean;
  isSuperuser: boolean;
  createdAt: Date;
  lastLogin: Date | null;
}

export interface GroupRow {
  id: number;
  name: string;
  scope: string;
  organizationUuid: string | null;
  permissions: string[];
}

/** Who a caller may see among users: everyone (staff), or themselves and fellow members. */
export type UserVisibility = { all: true } | { all: false; callerId: number };

export const referenceRepository = {
  /** `access` is a predicate on alias `o` whose placeholders come first. */
  async organizations(pool: pg.Pool, access: SqlFragment, uuids: string[]): Promise<OrganizationRow[]> {
    const { rows } = await pool.query<OrganizationRow>(
      `SELECT o.id, o.uuid, o.slug, o.name, o.is_active AS "isActive", o.is_deleted AS "isDeleted",
              o.created_at AS "createdAt", o.updated_at AS "updatedAt"
         FROM organizations o
        WHERE ${access.sql} AND NOT o.is_deleted AND o.uuid = ANY($${access.params.length + 1}::uuid[])`,
      [...access.params, uuids],
    );
    return rows;
  },

  async users(pool: pg.Pool, visibility: UserVisibility, uuids: string[]): Promise<UserRow[]> {
    const shared = visibility.all
      ? 'TRUE'
      : `(u.id = $2 OR EXISTS (SELECT 1 FROM memberships mine JOIN memberships theirs
             ON theirs.organization_id = mine.organization_id WHERE mine.user_id = $2 AND theirs.user_id = u.id))`;
    const { rows } = await pool.query<UserRow>(
      `SELECT u.id, u.uuid, u.slug, u.username, u.email, u.first_name AS "firstName", u.last_name AS "lastName",
              u.is_staff AS "isStaff", u.is_superuser AS "isSuperuser", u.created_at AS "createdAt", u.last_login AS "lastLogin"
         FROM users u
        WHERE u.uuid = ANY($1::uuid[]) AND u.is_active AND NOT u.is_deleted AND ${shared}`,
      visibility.all ? [uuids] : [uuids, visibility.callerId],
    );
    return rows;
  },

  /**
   * Groups the caller belongs to or whose organization passes `orgAccess` (a predicate on
   * alias `o`, placeholders first); `everything` for staff.
   */
  async groups(pool: pg.Pool, orgAccess: SqlFragment, callerId: number | null, everything: boolean, ids: number[]): Promise<GroupRow[]> {
    const select = `SELECT g.id, g.name, g.scope, org.uuid AS "organizationUuid", g.permissions
         FROM groups g LEFT JOIN organizations org ON org.id = g.organization_id`;
    if (everything) return (await pool.query<GroupRow>(`${select} WHERE g.id = ANY($1::int[])`, [ids])).rows;
    const n = orgAccess.params.length;
    const { rows } = await pool.query<GroupRow>(
      `${select}
        WHERE g.id = ANY($${n + 1}::int[])
          AND (EXISTS (SELECT 1 FROM group_members gm WHERE gm.group_id = g.id AND gm.user_id = $${n + 2}::int)
               OR EXISTS (SELECT 1 FROM organizations o WHERE o.id = g.organization_id AND NOT o.is_deleted AND ${orgAccess.sql}))`,
      [...orgAccess.params, ids, callerId],
    );
    return rows;
  },
};
