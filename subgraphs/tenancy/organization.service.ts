// Organizations: what the caller may see of them, and their life cycle (create, rename,
// soft delete with its cascade to sites and domains, restore). Every write and its audit
// entry share one transaction.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { orderBy, pageRequest, searchTerm, type ListInput, type ListResult } from '../core/listing.js';
import { isValidSlug, slugify, slugOrUuid, withUniqueSlug } from '../core/slug.js';
import { validate } from '../core/validate.js';
import { accessPredicate, can } from './access.service.js';
import { audit } from './audit-log.js';
import { organizationRepository, type OrganizationFilter, type OrganizationRow } from './organization.repository.js';

export type { OrganizationRow };

/**
 * An organization as the services answer it (camelCase, Dates); the REST routes render the
 * seed's view (organization-views.ts), GraphQL maps it to `Organization`.
 */
export type Organization = OrganizationRow;

const ORDERING = { name: 'name', slug: 'slug', created: 'created_at', created_at: 'created_at', updated_at: 'updated_at' };

function requireUser(ctx: RequestContext): void {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
}

/**
 * Live organizations the caller can view; with `includeDeleted`, also the soft-deleted ones
 * they could delete or restore (owners, delete_organization / manage_organization, staff).
 */
function visibility(ctx: RequestContext, includeDeleted: boolean): Pick<OrganizationFilter, 'access' | 'deletedAccess'> {
  const access = accessPredicate(ctx, 'view_organization', 'organization', 'o');
  if (!includeDeleted) return { access };
  return { access, deletedAccess: accessPredicate(ctx, 'delete_organization', 'organization', 'o', access.params.length + 1) };
}

export interface OrganizationListInput extends ListInput {
  /** Also the soft-deleted organizations the caller could delete or restore. */
  includeDeleted?: boolean | null;
  isActive?: boolean | null;
}

export async function listOrganizations(ctx: RequestContext, input: OrganizationListInput): Promise<ListResult<Organization>> {
  requireUser(ctx);
  const page = pageRequest(input);
  const order = orderBy(input.ordering, ORDERING, 'name');
  const includeDeleted = input.includeDeleted ?? false;
  const { rows, count } = await organizationRepository.list(
    ctx.platform.pool,
    { ...visibility(ctx, includeDeleted), search: searchTerm(input.search), isActive: input.isActive ?? undefined },
    order,
    page,
  );
  return { page, count, items: rows };
}

export interface RequireOptions {
  /** 403 unless the caller holds it on the organization. */
  permission?: string;
  /** Also find a soft-deleted organization (for those who may restore it). */
  includeDeleted?: boolean;
}

/**
 * An organization by slug or UUID as the caller sees it: 404 when it does not exist or is not
 * visible to them (so another tenant's organization is indistinguishable from a missing one),
 * 403 when visible but `permission` is not held.
 */
export async function requireOrganization(ctx: RequestContext, ref: string, opts: RequireOptions = {}): Promise<Organization> {
  requireUser(ctx);
  const row = await organizationRepository.findOne(ctx.platform.pool, {
    ...visibility(ctx, opts.includeDeleted ?? false),
    ref: slugOrUuid(ref),
  });
  if (!row) throw errors.notFound('Organization not found.');
  if (opts.permission && !(await can(ctx, opts.permission, 'organization', row.id))) throw errors.permissionDenied();
  return row;
}

/** One organization by slug or UUID; `includeDeleted` finds a soft-deleted one too. */
export async function getOrganization(ctx: RequestContext, ref: string, opts: { includeDeleted?: boolean } = {}): Promise<Organization> {
  return requireOrganization(ctx, ref, { includeDeleted: opts.includeDeleted ?? false });
}

interface OrganizationBody {
  name?: string;
  slug?: string;
}

const NAME = { type: 'string', minLength: 1, maxLength: 200 } as const;
const SLUG = { type: 'string', minLength: 1, maxLength: 100 } as const;
/** Bodies of create/PUT and of PATCH (also documented by the REST routes' `requestSchema`). */
export const ORGANIZATION_CREATE_SCHEMA = { type: 'object', properties: { name: NAME, slug: SLUG }, required: ['name'] } as const;
export const ORGANIZATION_PATCH_SCHEMA = { type: 'object', properties: { name: NAME, slug: SLUG } } as const;
const CREATE_SCHEMA = ORGANIZATION_CREATE_SCHEMA;
const PATCH_SCHEMA = ORGANIZATION_PATCH_SCHEMA;

/** Trimmed name and checked slug of a body (400 naming the field). */
function cleanBody(body: OrganizationBody): OrganizationBody {
  const out: OrganizationBody = {};
  if (body.name !== undefined) {
    out.name = body.name.trim();
    if (!out.name) throw errors.field('name', 'This field may not be blank.');
  }
  if (body.slug !== undefined) {
    if (!isValidSlug(body.slug)) {
      throw errors.field('slug', 'Use lower-case letters, digits and single hyphens (not a UUID), at most 56 characters.');
    }
    out.slug = body.slug;
  }
  return out;
}

const SLUG_TAKEN = Symbol('slug taken');
const slugConflict = (slug: string) => errors.conflict(`The slug "${slug}" is already in use.`, { slug: ['Already in use.'] });

/** `POST /api/organizations/`: the caller becomes its owner. */
export async function createOrganization(ctx: RequestContext, input: unknown): Promise<Organization> {
  requireUser(ctx);
  if (ctx.principal.kind !== 'user') throw errors.permissionDenied('Only a user can create an organization.');
  const userId = ctx.principal.userId;
  const body = cleanBody(validate<OrganizationBody>(CREATE_SCHEMA, input));
  const name = body.name!;
  const row = await ctx.platform.prisma.$transaction(async (tx) => {
    const insert = async (slug: string) => {
      const created = await organizationRepository.insert(tx, { slug, name, createdById: userId });
      if (!created) throw SLUG_TAKEN;
      return created;
    };
    let org: Organization;
    try {
      org = body.slug
        ? await insert(body.slug)
        : await withUniqueSlug({
            base: slugify(name, 'organization'),
            taken: (base) => organizationRepository.slugsLike(tx, base),
            insert,
            isSlugConflict: (e) => e === SLUG_TAKEN,
          });
    } catch (e) {
      if (e === SLUG_TAKEN) throw slugConflict(body.slug!);
      throw e;
    }
    await tx.membership.create({ data: { organizationId: org.id, userId, role: 'owner' } });
    await audit(tx, ctx, {
      action: 'create',
      objectType: 'organization',
      objectId: org.uuid,
      organizationId: org.id,
      changes: { name, slug: org.slug },
    });
    return org;
  });
  return row;
}

/** `PUT` (name required) or `PATCH` (any of name, slug). */
export async function updateOrganization(ctx: RequestContext, ref: string, input: unknown, partial: boolean): Promise<Organization> {
  const org = await requireOrganization(ctx, ref, { permission: 'change_organization' });
  const body = cleanBody(validate<OrganizationBody>(partial ? PATCH_SCHEMA : CREATE_SCHEMA, input));
  const next = { name: body.name ?? org.name, slug: body.slug ?? org.slug };
  const changes = Object.fromEntries(Object.entries(next).filter(([k, v]) => org[k as 'name' | 'slug'] !== v));
  if (Object.keys(changes).length === 0) return org;
  const row = await ctx.platform.prisma.$transaction(async (tx) => {
    const updated = await organizationRepository.update(tx, org.id, next);
    if (!updated) throw slugConflict(next.slug);
    await audit(tx, ctx, { action: 'update', objectType: 'organization', objectId: org.uuid, organizationId: org.id, changes });
    return updated;
  });
  return row;
}

/**
 * Soft delete with its cascade: the organization's live sites and their active domains, in
 * one transaction; then every cached host is forgotten, so those hosts answer
 * tenant_not_found at once.
 */
/** Soft-deletes an organization with its sites and domains; answers it as it was before. */
export async function deleteOrganization(ctx: RequestContext, ref: string): Promise<Organization> {
  const org = await requireOrganization(ctx, ref, { permission: 'delete_organization' });
  await ctx.platform.prisma.$transaction(async (tx) => {
    const locked = await organizationRepository.lock(tx, org.id);
    if (locked.isDeleted) throw errors.notFound('Organization not found.');
    const cascade = await organizationRepository.softDelete(tx, org.id);
    await audit(tx, ctx, {
      action: 'delete',
      objectType: 'organization',
      objectId: org.uuid,
      organizationId: org.id,
      changes: { is_active: false, is_deleted: true, sites: cascade.sites.length, domains: cascade.domains },
    });
  });
  ctx.platform.invalidation.publish({ kind: 'tenant' });
  ctx.platform.invalidation.publish({ kind: 'apiKeys' }); // keys of the sites' apps stop at once
  return org;
}

/** `POST …/restore/`: the organization and what its deletion cascaded to, nothing more. */
export async function restoreOrganization(ctx: RequestContext, ref: string): Promise<Organization> {
  const org = await requireOrganization(ctx, ref, { includeDeleted: true, permission: 'delete_organization' });
  if (!org.isDeleted) throw errors.invalid('The organization is not deleted.');
  const row = await ctx.platform.prisma.$transaction(async (tx) => {
    const locked = await organizationRepository.lock(tx, org.id);
    if (!locked.isDeleted) throw errors.invalid('The organization is not deleted.');
    const cascade = await organizationRepository.restore(tx, org.id);
    await audit(tx, ctx, {
      action: 'restore',
      objectType: 'organization',
      objectId: org.uuid,
      organizationId: org.id,
      changes: { is_active: true, is_deleted: false, sites: cascade.sites.length, domains: cascade.domains },
    });
    return organizationRepository.lock(tx, org.id);
  });
  ctx.platform.invalidation.publish({ kind: 'tenant' });
  ctx.platform.invalidation.publish({ kind: 'apiKeys' });
  return row;
}
