// Object-level access. One function, allowed(ctx, permission, type, ids), answers for a whole
// set of objects in one query; lists use the same predicate inside their own query.
//
// A user holds a permission on an organization when they own it, when their membership lists
// it (membership alone grants view_organization), through a group of that organization or a
// platform group, or through an object permission granted to them or one of their groups.
// A site inherits everything held on its organization, plus grants on the site itself.
// Staff and superusers hold every permission. An API key acts inside its app's site only.
import type { RequestContext } from '../core/context.js';
import { prepared } from '../core/db.js';

export type ObjectType = 'organization' | 'site';

export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/** `$n` placeholders: user id, granting permissions, membership-is-enough flag. */
function grantSql(type: ObjectType, alias: string, p: [string, string, string]): string {
  const [user, perms, memberView] = p;
  const orgId = type === 'organization' ? `${alias}.id` : `${alias}.organization_id`;
  // Uncorrelated sets: PostgreSQL computes each once per query (a hashed subplan) instead of
  // once per candidate row, which is what keeps a page of results at the cost of one query.
  const groupsOfUser = `SELECT gm.group_id FROM group_members gm WHERE gm.user_id = ${user}`;
  const grantedOn = (objType: string) =>
    `SELECT op.object_id FROM object_permissions op WHERE op.object_type = '${objType}'` +
    ` AND op.permission = ANY(${perms}::text[]) AND (op.user_id = ${user} OR op.group_id IN (${groupsOfUser}))`;
  const groupGrant = (scope: string) =>
    `FROM groups g JOIN group_members gm ON gm.group_id = g.id WHERE gm.user_id = ${user}` +
    ` AND g.scope = '${scope}' AND g.permissions && ${perms}::text[]`;
  const parts = [
    `${orgId} IN (SELECT m.organization_id FROM memberships m WHERE m.user_id = ${user}` +
      ` AND (m.role = 'owner' OR m.permissions && ${perms}::text[] OR ${memberView}::boolean))`,
    `${orgId} IN (SELECT g.organization_id ${groupGrant('organization')})`,
    `EXISTS (SELECT 1 ${groupGrant('platform')})`,
    `${orgId} IN (${grantedOn('organization')})`,
  ];
  if (type === 'site') parts.push(`${alias}.id IN (${grantedOn('site')})`);
  return `(${parts.join(' OR ')})`;
}

const isPlatformOperator = (ctx: RequestContext) => ctx.principal.kind === 'user' && (ctx.principal.isStaff || ctx.principal.isSuperuser);

/**
 * A WHERE fragment restricting rows of `alias` (an organizations or sites row) to those the
 * caller holds `permission` on. Placeholders start at $`firstParam`.
 */
export function accessPredicate(ctx: RequestContext, permission: string, type: ObjectType, alias: string, firstParam = 1): SqlFragment {
  const principal = ctx.principal;
  if (isPlatformOperator(ctx)) return { sql: 'TRUE', params: [] };
  if (principal.kind === 'api_key') {
    return type === 'site' ? { sql: `${alias}.id = $${firstParam}`, params: [principal.siteId] } : { sql: 'FALSE', params: [] };
  }
  if (principal.kind !== 'user') return { sql: 'FALSE', params: [] };
  const n = firstParam;
  return {
    sql: grantSql(type, alias, [`$${n}`, `$${n + 1}`, `$${n + 2}`]),
    params: [
      principal.userId,
      ctx.platform.permissions.granting(permission),
      type === 'organization' && permission === 'view_organization',
    ],
  };
}

/** The subset of `ids` on which the caller holds `permission` — one query for the whole set. */
export async function allowed(ctx: RequestContext, permission: string, type: ObjectType, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  if (isPlatformOperator(ctx)) return new Set(ids);
  const pred = accessPredicate(ctx, permission, type, 't', 2);
  if (pred.sql === 'FALSE') return new Set();
  const table = type === 'organization' ? 'organizations' : 'sites';
  const { rows } = await ctx.platform.pool.query<{ id: number }>(
    prepared(`SELECT t.id FROM ${table} t WHERE t.id = ANY($1::int[]) AND ${pred.sql}`, [ids, ...pred.params]),
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * After a change of rights (membership, role, a member's or a group's permissions, group
 * membership, a group deleted): every process forgets the access it had remembered
 * (core/grant-cache.ts) — at once here, within a second elsewhere.
 */
export function rightsChanged(ctx: RequestContext): void {
  ctx.platform.invalidation.publish({ kind: 'grants' });
}

export async function can(ctx: RequestContext, permission: string, type: ObjectType, id: number): Promise<boolean> {
  return (await allowed(ctx, permission, type, [id])).has(id);
}
