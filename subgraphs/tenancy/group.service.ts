// Groups (DECISIONS §4): a named set of users carrying permissions, at platform level or in
// one organization. Their permissions take effect through access.service.ts: an organization
// group's on that organization and its sites, a platform group's everywhere.
//
// Visible: an organization's groups to whoever can view the organization, any group to its
// members, everything to staff; others answer 404. Changed: platform groups by superusers,
// organization groups by owners and holders of manage_organization there (403 otherwise).
// Services return the group record; each transport renders it (REST: users-views.ts).
// Access checks read group membership live from the database, so a change applies at once
// in every process: there is no permission cache to invalidate.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { orderBy, pageRequest, searchTerm, type ListInput, type ListResult } from '../core/listing.js';
import { slugOrUuid } from '../core/slug.js';
import { accessPredicate, can, rightsChanged } from './access.service.js';
import { audit } from './audit-log.js';
import { groupRepository, type GroupFilter, type GroupRecord } from './group.repository.js';
import { asBody, Checker, checkPermissions } from './user-input.js';
import { userRepository } from './user.repository.js';
import { requireUserPrincipal } from './user.service.js';

const ORDERING = { name: 'name', id: 'id', created_at: 'created_at', updated_at: 'updated_at' };
const SCOPES = ['platform', 'organization'];

function visibleTo(ctx: RequestContext, extra: Partial<GroupFilter> = {}): GroupFilter {
  const me = requireUserPrincipal(ctx);
  return { orgAccess: accessPredicate(ctx, 'view_organization', 'organization', 'o'), callerId: me.userId, ...extra };
}

export interface GroupListInput extends ListInput {
  /** platform or organization. */
  scope?: string | null;
  /** Groups of this organization (slug or UUID). */
  organizationSlug?: string | null;
}

export async function listGroups(ctx: RequestContext, input: GroupListInput): Promise<ListResult<GroupRecord>> {
  const filter = visibleTo(ctx);
  const page = pageRequest(input);
  const order = orderBy(input.ordering, ORDERING, 'name');
  const scope = input.scope?.trim();
  if (scope && !SCOPES.includes(scope)) throw errors.field('scope', 'Use "platform" or "organization".');
  const org = input.organizationSlug?.trim();
  const { rows, count } = await groupRepository.list(
    ctx.platform.pool,
    { ...filter, search: searchTerm(input.search), scope: scope || undefined, organization: org ? slugOrUuid(org) : undefined },
    order,
    page,
  );
  return { page, count, items: rows };
}

/** Visible groups among `ids`, in one query (GraphQL references). */
export async function findVisibleGroups(ctx: RequestContext, ids: number[]): Promise<GroupRecord[]> {
  return ids.length ? groupRepository.find(ctx.platform.pool, visibleTo(ctx, { ids })) : [];
}

async function findVisibleGroup(ctx: RequestContext, ref: string | number): Promise<GroupRecord> {
  const filter = visibleTo(ctx);
  const id = String(ref);
  if (!/^\d{1,9}$/.test(id)) throw errors.notFound('Group not found.');
  const [group] = await groupRepository.find(ctx.platform.pool, { ...filter, ids: [Number(id)] });
  if (!group) throw errors.notFound('Group not found.');
  return group;
}

export const getGroup = (ctx: RequestContext, ref: string | number): Promise<GroupRecord> => findVisibleGroup(ctx, ref);

async function requireManage(ctx: RequestContext, scope: string, organizationId: number | null): Promise<void> {
  const me = requireUserPrincipal(ctx);
  if (scope === 'platform' || organizationId === null) {
    if (!me.isSuperuser) throw errors.permissionDenied('Only a superuser may manage platform groups.');
  } else if (!(await can(ctx, 'manage_organization', 'organization', organizationId))) {
    throw errors.permissionDenied();
  }
}

async function checkNameFree(ctx: RequestContext, name: string, organizationId: number | null, exceptId?: number) {
  if (await groupRepository.nameTaken(ctx.platform.prisma, name, organizationId, exceptId)) {
    throw errors.conflict('A group with that name already exists here.', { name: ['A group with that name already exists here.'] });
  }
}

/** The organization named in a create body: live and visible to the caller, else a 400 on the field. */
async function bodyOrganization(ctx: RequestContext, ref: string): Promise<{ id: number; slug: string }> {
  const org = await groupRepository.organizationByRef(ctx.platform.prisma, slugOrUuid(ref));
  if (!org || !(await can(ctx, 'view_organization', 'organization', org.id))) {
    throw errors.field('organization', `Organization "${ref}" not found.`);
  }
  return org;
}

export async function createGroup(ctx: RequestContext, body: unknown): Promise<GroupRecord> {
  requireUserPrincipal(ctx);
  const c = new Checker(asBody(body));
  const name = c.string('name', { required: true, max: 150 });
  const orgRef = c.string('organization', { max: 100 }) || undefined;
  const scope = c.string('scope', { max: 20 }) ?? (orgRef ? 'organization' : 'platform');
  const permissions = checkPermissions(c, ctx.platform.permissions.codenames) ?? [];
  if (!SCOPES.includes(scope)) c.add('scope', 'Use "platform" or "organization".');
  if (scope === 'organization' && !orgRef) c.add('organization', 'An organization group needs its organization.');
  if (scope === 'platform' && orgRef) c.add('organization', 'A platform group belongs to no organization.');
  c.done();
  const org = orgRef ? await bodyOrganization(ctx, orgRef) : null;
  await requireManage(ctx, scope, org?.id ?? null);
  await checkNameFree(ctx, name!, org?.id ?? null);
  const created = await ctx.platform.prisma.$transaction(async (tx) => {
    const g = await groupRepository.create(tx, { name: name!, scope, organizationId: org?.id ?? null, permissions });
    await audit(tx, ctx, {
      action: 'create',
      objectType: 'group',
      objectId: g.id,
      organizationId: g.organizationId,
      changes: { name, scope, permissions },
    });
    return g;
  });
  return getGroup(ctx, created.id);
}

/** PUT (`replace`: name required) or PATCH (`patch`). Scope and organization never change. */
export async function updateGroup(
  ctx: RequestContext,
  ref: string | number,
  body: unknown,
  mode: 'replace' | 'patch',
): Promise<GroupRecord> {
  const group = await findVisibleGroup(ctx, ref);
  await requireManage(ctx, group.scope, group.organizationId);
  const c = new Checker(asBody(body));
  const name = c.string('name', { required: mode === 'replace', max: 150 });
  const permissions = checkPermissions(c, ctx.platform.permissions.codenames);
  if (c.has('scope') && c.body.scope !== group.scope) c.add('scope', 'The scope of a group cannot change.');
  const orgBody = c.body.organization;
  const sameOrg =
    (orgBody ?? null) === group.organizationSlug || (typeof orgBody === 'string' && orgBody.toLowerCase() === group.organizationUuid);
  if (orgBody !== undefined && !sameOrg) c.add('organization', 'The organization of a group cannot change.');
  c.done();
  if (name !== undefined && name !== group.name) await checkNameFree(ctx, name, group.organizationId, group.id);
  await ctx.platform.prisma.$transaction(async (tx) => {
    await groupRepository.update(tx, group.id, { name, permissions });
    await audit(tx, ctx, {
      action: 'update',
      objectType: 'group',
      objectId: group.id,
      organizationId: group.organizationId,
      changes: { name, permissions },
    });
  });
  rightsChanged(ctx);
  return getGroup(ctx, group.id);
}

/** Deletes a group; answers it as it was. */
export async function deleteGroup(ctx: RequestContext, ref: string | number): Promise<GroupRecord> {
  const group = await findVisibleGroup(ctx, ref);
  await requireManage(ctx, group.scope, group.organizationId);
  await ctx.platform.prisma.$transaction(async (tx) => {
    await groupRepository.remove(tx, group.id);
    await audit(tx, ctx, {
      action: 'delete',
      objectType: 'group',
      objectId: group.id,
      organizationId: group.organizationId,
      changes: { name: group.name },
    });
  });
  rightsChanged(ctx);
  return group;
}

/** `{user}`: slug, UUID or username. An organization group takes members of its organization only. */
export async function addGroupMember(ctx: RequestContext, ref: string | number, body: unknown): Promise<GroupRecord> {
  const group = await findVisibleGroup(ctx, ref);
  await requireManage(ctx, group.scope, group.organizationId);
  const c = new Checker(asBody(body));
  const userRef = c.string('user', { required: true, max: 200 });
  c.done();
  const user = await userRepository.findActiveByRef(ctx.platform.pool, userRef!);
  const db = ctx.platform.prisma;
  if (group.organizationId !== null) {
    // One message for "no such user" and "not a member", so the answer reveals nothing outside the organization.
    if (!user || !(await groupRepository.isOrganizationMember(db, group.organizationId, user.id))) {
      throw errors.field('user', `No member of organization "${group.organizationSlug}" matches "${userRef}".`);
    }
  } else if (!user) {
    throw errors.field('user', `User "${userRef}" not found.`);
  }
  await db.$transaction(async (tx) => {
    await groupRepository.addMember(tx, group.id, user!.id);
    await audit(tx, ctx, {
      action: 'add_member',
      objectType: 'group',
      objectId: group.id,
      organizationId: group.organizationId,
      changes: { user: user!.uuid },
    });
  });
  return getGroup(ctx, group.id);
}

export async function removeGroupMember(ctx: RequestContext, ref: string | number, userRef: string): Promise<GroupRecord> {
  const group = await findVisibleGroup(ctx, ref);
  await requireManage(ctx, group.scope, group.organizationId);
  const user = await userRepository.findActiveByRef(ctx.platform.pool, userRef);
  const removed = user
    ? await ctx.platform.prisma.$transaction(async (tx) => {
        const n = await groupRepository.removeMember(tx, group.id, user.id);
        if (n)
          await audit(tx, ctx, {
            action: 'remove_member',
            objectType: 'group',
            objectId: group.id,
            organizationId: group.organizationId,
            changes: { user: user.uuid },
          });
        return n;
      })
    : 0;
  if (!removed) throw errors.notFound('That user is not a member of this group.');
  rightsChanged(ctx);
  return getGroup(ctx, group.id);
}
