// Groups and their members. Reads are raw SQL (the caller's visibility joins in); writes go
// through the transaction of the service.
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import type { Tx } from '../core/db.js';
import type { OrderBy, PageRequest } from '../core/listing.js';
import type { SqlFragment } from './access.service.js';

export interface GroupMemberRef {
  uuid: string;
  username: string;
}

export interface GroupRecord {
  id: number;
  name: string;
  scope: 'platform' | 'organization';
  organizationId: number | null;
  organizationSlug: string | null;
  organizationUuid: string | null;
  permissions: string[];
  users: GroupMemberRef[];
  createdAt: Date;
  updatedAt: Date;
}

export interface GroupFilter {
  /** Predicate on organizations alias `o` (view_organization); its placeholders come first. */
  orgAccess: SqlFragment;
  callerId: number;
  search?: string;
  scope?: string;
  organization?: { uuid: string } | { slug: string };
  ids?: number[];
}

const COLUMNS = `g.id, g.name, g.scope, g.organization_id AS "organizationId", o.slug AS "organizationSlug", o.uuid AS "organizationUuid",
  g.permissions,
  g.created_at AS "createdAt", g.updated_at AS "updatedAt",
  COALESCE((SELECT json_agg(json_build_object('uuid', u.uuid, 'username', u.username) ORDER BY u.username)
              FROM group_members gm JOIN users u ON u.id = gm.user_id
             WHERE gm.group_id = g.id AND NOT u.is_deleted), '[]'::json) AS users`;

const FROM = 'groups g LEFT JOIN organizations o ON o.id = g.organization_id';

/**
 * A group is visible to its members, and an organization's group to whoever can view that
 * organization (members, holders of view_organization, staff: orgAccess is TRUE for staff).
 */
function groupWhere(f: GroupFilter): SqlFragment {
  const params: unknown[] = [...f.orgAccess.params];
  const clauses = ['(g.organization_id IS NULL OR NOT o.is_deleted)'];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(params.length));
  };
  add(
    (n) => `(${f.orgAccess.sql === 'TRUE' ? 'TRUE' : `(g.organization_id IS NOT NULL AND ${f.orgAccess.sql})`}
      OR EXISTS (SELECT 1 FROM group_members mine WHERE mine.group_id = g.id AND mine.user_id = $${n}))`,
    f.callerId,
  );
  if (f.search) add((n) => `g.name ILIKE $${n}`, `%${f.search.replace(/[\\%_]/g, '\\$&')}%`);
  if (f.scope) add((n) => `g.scope = $${n}`, f.scope);
  if (f.organization && 'uuid' in f.organization) add((n) => `o.uuid = $${n}::uuid`, f.organization.uuid);
  if (f.organization && 'slug' in f.organization) add((n) => `o.slug = $${n}`, f.organization.slug);
  if (f.ids) add((n) => `g.id = ANY($${n}::int[])`, f.ids);
  return { sql: clauses.join(' AND '), params };
}

export const groupRepository = {
  async list(pool: pg.Pool, f: GroupFilter, order: OrderBy[], page: PageRequest): Promise<{ rows: GroupRecord[]; count: number }> {
    const w = groupWhere(f);
    const orderSql = [...order.map((o) => `g.${o.column} ${o.desc ? 'DESC' : 'ASC'}`), 'g.id ASC'].join(', ');
    return queryPage<GroupRecord>(pool, { select: COLUMNS, from: `FROM ${FROM}`, where: w, orderBy: orderSql, page });
  },

  async find(pool: pg.Pool, f: GroupFilter): Promise<GroupRecord[]> {
    const w = groupWhere(f);
    return (await pool.query<GroupRecord>(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${w.sql} ORDER BY g.id`, w.params)).rows;
  },

  /** Whether another group of the same scope and organization already has this name. */
  async nameTaken(db: Tx, name: string, organizationId: number | null, exceptId?: number): Promise<boolean> {
    const n = await db.group.count({
      where: { name: { equals: name, mode: 'insensitive' }, organizationId, ...(exceptId ? { id: { not: exceptId } } : {}) },
    });
    return n > 0;
  },

  create: (tx: Tx, data: { name: string; scope: string; organizationId: number | null; permissions: string[] }) =>
    tx.group.create({ data }),

  update: (tx: Tx, id: number, data: { name?: string; permissions?: string[] }) => tx.group.update({ where: { id }, data }),

  /** Removes the group, its memberships (cascade) and object permissions granted to it. */
  async remove(tx: Tx, id: number): Promise<void> {
    await tx.objectPermission.deleteMany({ where: { groupId: id } });
    await tx.group.delete({ where: { id } });
  },

  addMember: (tx: Tx, groupId: number, userId: number) => tx.groupMember.createMany({ data: [{ groupId, userId }], skipDuplicates: true }),

  removeMember: async (tx: Tx, groupId: number, userId: number) => (await tx.groupMember.deleteMany({ where: { groupId, userId } })).count,

  isOrganizationMember: async (db: Tx, organizationId: number, userId: number) =>
    (await db.membership.count({ where: { organizationId, userId } })) > 0,

  /** A live organization by slug or UUID with its id (for the create body). */
  organizationByRef: (db: Tx, ref: { uuid: string } | { slug: string }) =>
    db.organization.findFirst({ where: { ...ref, isDeleted: false }, select: { id: true, slug: true } }),
};
