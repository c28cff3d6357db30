// Object-level access. One function, allowed(ctx, permission, type, ids), answers for a whole
// set of objects in one query; lists use the same predicate inside their own query.
//
// A user holds a permission on an organization when they own it, when their membership lists
// it (membership alone grants view_organization), through a group of that organization or a
// platform group, or through an object permission granted to them or one of their groups.
// A site inherits everything held on its organization, plus grants on the site itself.
// Staff and superusers hold every permission. An API key acts inside its app's site only.
import type { RequestContext } from '../core/context.js';
import { grantingPermissions } from './permission.catalog.js';

export type ObjectType = 'organization' | 'site';

export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/** `$n` placeholders: user id, granting permissions, membership-is-enough flag. */
function grantSql(type: ObjectType, alias: string, p: [string, string, string]): string {
  const [user, perms, memberView] = p;
  const orgId = type === 'organization' ? `${alias}.id` : `${alias}.organization_id`;
  const groupsOfUser = `SELECT gm.group_id FROM group_members gm WHERE gm.user_id = ${user}`;
  const onObject = (objType: string, idExpr: string) =>
    `EXISTS (SELECT 1 FROM object_permissions op WHERE op.object_type = '${objType}' AND op.object_id = ${idExpr}` +
    ` AND op.permission = ANY(${perms}::text[]) AND (op.user_id = ${user} OR op.group_id IN (${groupsOfUser})))`;
  const parts = [
    `EXISTS (SELECT 1 FROM memberships m WHERE m.organization_id = ${orgId} AND m.user_id = ${user}` +
      ` AND (m.role = 'owner' OR m.permissions && ${perms}::text[] OR ${memberView}::boolean))`,
    `EXISTS (SELECT 1 FROM group_members gm JOIN groups g ON g.id = gm.group_id WHERE gm.user_id = ${user}` +
      ` AND g.permissions && ${perms}::text[] AND (g.scope = 'platform' OR g.organization_id = ${orgId}))`,
    onObject('organization', orgId),
  ];
  if (type === 'site') parts.push(onObject('site', `${alias}.id`));
  return `(${parts.join(' OR ')})`;
}

const isPlatformOperator = (ctx: RequestContext) =>
  ctx.principal.kind === 'user' && (ctx.principal.isStaff || ctx.principal.isSuperuser);

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
    params: [principal.userId, grantingPermissions(permission), type === 'organization' && permission === 'view_organization'],
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
    `SELECT t.id FROM ${table} t WHERE t.id = ANY($1::int[]) AND ${pred.sql}`,
    [ids, ...pred.params],
  );
  return new Set(rows.map((r) => r.id));
}

export async function can(ctx: RequestContext, permission: string, type: ObjectType, id: number): Promise<boolean> {
  return (await allowed(ctx, permission, type, [id])).has(id);
}
