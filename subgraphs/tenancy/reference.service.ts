// Organizations, users and groups by id, batched, for federation references: what another
// subgraph names by id is only resolved when the caller may see it; otherwise it is absent.
import type { RequestContext } from '../core/context.js';
import { isUuid } from '../core/slug.js';
import { accessPredicate } from './access.service.js';
import type { OrganizationRow } from './organization.repository.js';
import { referenceRepository, type GroupRow, type UserRow } from './reference.repository.js';

export type { GroupRow, OrganizationRow, UserRow };

const uuidsOnly = (ids: readonly string[]) => ids.filter(isUuid).map((u) => u.toLowerCase());
const isOperator = (ctx: RequestContext) => ctx.principal.kind === 'user' && (ctx.principal.isStaff || ctx.principal.isSuperuser);

export async function findOrganizations(ctx: RequestContext, uuids: readonly string[]): Promise<OrganizationRow[]> {
  const valid = uuidsOnly(uuids);
  if (ctx.principal.kind === 'anonymous' || valid.length === 0) return [];
  return referenceRepository.organizations(ctx.platform.pool, accessPredicate(ctx, 'view_organization', 'organization', 'o'), valid);
}

/** Users are visible to staff, to themselves and to members of an organization they share. */
export async function findUsers(ctx: RequestContext, uuids: readonly string[]): Promise<UserRow[]> {
  const valid = uuidsOnly(uuids);
  if (ctx.principal.kind !== 'user' || valid.length === 0) return [];
  const visibility = isOperator(ctx) ? ({ all: true } as const) : ({ all: false, callerId: ctx.principal.userId } as const);
  return referenceRepository.users(ctx.platform.pool, visibility, valid);
}

/** Groups are visible to staff, to their members and to those who can view their organization. */
export async function findGroups(ctx: RequestContext, ids: readonly string[]): Promise<GroupRow[]> {
  const valid = ids.filter((id) => /^\d{1,9}$/.test(id)).map(Number);
  if (ctx.principal.kind !== 'user' || valid.length === 0) return [];
  const access = accessPredicate(ctx, 'view_organization', 'organization', 'o');
  return referenceRepository.groups(ctx.platform.pool, access, ctx.principal.userId, isOperator(ctx), valid);
}
