// Members of an organization: anyone who can view the organization may list them; owners
// and holders of manage_organization change roles and permissions or remove members. An
// organization always keeps at least one owner.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { orderBy, pageRequest, searchTerm, type ListInput, type ListResult } from '../core/listing.js';
import { slugOrUuid } from '../core/slug.js';
import { validate } from '../core/validate.js';
import { can, rightsChanged } from './access.service.js';
import { audit } from './audit-log.js';
import { memberRepository, type Member } from './member.repository.js';
import { requireOrganization } from './organization.service.js';

/** Services answer the member as the repository reads it; each transport renders its own view. */
export type { Member };

export const ROLES = ['owner', 'member'] as const;

const ORDERING = { username: 'u.username', email: 'u.email', role: 'm.role', joined_at: 'm.joined_at' };

/** 400 naming every entry of `list` that is not in the permission catalogue. */
export function checkPermissions(field: string, list: string[], allowed: ReadonlySet<string>): string[] {
  const unknown = [...new Set(list.filter((p) => !allowed.has(p)))];
  if (unknown.length) {
    const names = unknown.map((p) => `"${p}"`).join(', ');
    throw errors.invalid(`Unknown permission${unknown.length > 1 ? 's' : ''}: ${names}.`, {
      [field]: [`Unknown permission${unknown.length > 1 ? 's' : ''}: ${names}.`],
    });
  }
  return [...new Set(list)].sort();
}

export interface MemberListInput extends ListInput {
  /** owner or member. */
  role?: string | null;
}

export async function listMembers(ctx: RequestContext, orgRef: string, input: MemberListInput): Promise<ListResult<Member>> {
  const org = await requireOrganization(ctx, orgRef);
  const page = pageRequest(input);
  const order = orderBy(input.ordering, ORDERING, 'username');
  const role = input.role ?? undefined;
  if (role && !(ROLES as readonly string[]).includes(role)) throw errors.field('role', 'Use owner or member.');
  const { rows, count } = await memberRepository.list(ctx.platform.pool, org.id, { search: searchTerm(input.search), role }, order, page);
  return { page, count, items: rows };
}

async function findMember(ctx: RequestContext, orgId: number, userRef: string): Promise<Member> {
  const member = await memberRepository.findOne(ctx.platform.pool, orgId, slugOrUuid(userRef));
  if (!member) throw errors.notFound('Member not found.');
  return member;
}

export async function getMember(ctx: RequestContext, orgRef: string, userRef: string): Promise<Member> {
  const org = await requireOrganization(ctx, orgRef);
  return findMember(ctx, org.id, userRef);
}

interface MemberPatch {
  role?: 'owner' | 'member';
  permissions?: string[];
}

const PATCH_SCHEMA = {
  type: 'object',
  properties: {
    role: { type: 'string', enum: [...ROLES] },
    permissions: { type: 'array', items: { type: 'string' }, maxItems: 100 },
  },
} as const;

const LAST_OWNER = 'An organization needs at least one owner: make someone else owner first.';

/** `PATCH …/members/{user}/` `{role, permissions}`. */
export async function updateMember(ctx: RequestContext, orgRef: string, userRef: string, input: unknown): Promise<Member> {
  const org = await requireOrganization(ctx, orgRef, { permission: 'manage_organization' });
  const body = validate<MemberPatch>(PATCH_SCHEMA, input);
  const member = await findMember(ctx, org.id, userRef);
  const next = {
    role: body.role ?? member.role,
    permissions: body.permissions
      ? checkPermissions('permissions', body.permissions, ctx.platform.permissions.codenames)
      : member.permissions,
  };
  const changes: Record<string, unknown> = {};
  if (next.role !== member.role) changes.role = next.role;
  if (next.permissions.join(',') !== [...member.permissions].sort().join(',')) changes.permissions = next.permissions;
  if (Object.keys(changes).length === 0) return member;
  await ctx.platform.prisma.$transaction(async (tx) => {
    if (member.role === 'owner' && next.role !== 'owner') {
      const owners = await memberRepository.lockOwners(tx, org.id);
      if (owners.filter((id) => id !== member.userId).length === 0) throw errors.invalid(LAST_OWNER, { role: [LAST_OWNER] });
    }
    await memberRepository.update(tx, member.membershipId, next);
    await audit(tx, ctx, {
      action: 'update',
      objectType: 'member',
      objectId: member.uuid,
      organizationId: org.id,
      changes: { user: member.username, ...changes },
    });
  });
  rightsChanged(ctx);
  return { ...member, ...next };
}

/**
 * `DELETE …/members/{user}/`: owners and manage_organization remove anyone; a member may also
 * remove themselves (leave). The last owner stays.
 */
/** Removes a member; answers the membership as it was. */
export async function removeMember(ctx: RequestContext, orgRef: string, userRef: string): Promise<Member> {
  const org = await requireOrganization(ctx, orgRef);
  const member = await findMember(ctx, org.id, userRef);
  const self = ctx.principal.kind === 'user' && ctx.principal.userId === member.userId;
  if (!self && !(await can(ctx, 'manage_organization', 'organization', org.id))) throw errors.permissionDenied();
  await ctx.platform.prisma.$transaction(async (tx) => {
    if (member.role === 'owner') {
      const owners = await memberRepository.lockOwners(tx, org.id);
      if (owners.filter((id) => id !== member.userId).length === 0) throw errors.invalid(LAST_OWNER);
    }
    await memberRepository.remove(tx, org.id, member.userId);
    await audit(tx, ctx, {
      action: 'delete',
      objectType: 'member',
      objectId: member.uuid,
      organizationId: org.id,
      changes: { user: member.username, role: member.role },
    });
  });
  rightsChanged(ctx);
  return member;
}
