// Organizations: what the caller may see of them.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { parseBool, parseOrdering, parsePage, parseSearch, type Query } from '../core/listing.js';
import { isUuid } from '../core/slug.js';
import { accessPredicate } from './access.service.js';
import { organizationRepository, type OrganizationRow } from './organization.repository.js';

export interface OrganizationView {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  is_active: boolean;
  created: string;
  updated: string;
}

export const toOrganizationView = (o: OrganizationRow): OrganizationView => ({
  id: o.id,
  uuid: o.uuid,
  slug: o.slug,
  name: o.name,
  is_active: o.is_active,
  created: o.created_at.toISOString(),
  updated: o.updated_at.toISOString(),
});

const ORDERING = { name: 'name', slug: 'slug', created: 'created_at', created_at: 'created_at', updated_at: 'updated_at' };

function requireUser(ctx: RequestContext): void {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
}

export async function listOrganizations(ctx: RequestContext, query: Query) {
  requireUser(ctx);
  const page = parsePage(query);
  const order = parseOrdering(query, ORDERING, 'name');
  const includeDeleted = parseBool(query, 'include_deleted') ?? false;
  // Soft-deleted organizations are listed for staff, and for their owners (manage_organization).
  const access = accessPredicate(ctx, includeDeleted ? 'manage_organization' : 'view_organization', 'organization', 'o');
  const { rows, count } = await organizationRepository.list(
    ctx.platform.pool,
    { access, search: parseSearch(query), isActive: parseBool(query, 'is_active'), includeDeleted },
    order,
    page,
  );
  return { page, count, items: rows.map(toOrganizationView) };
}

/** One organization by slug or UUID; 404 when it does not exist or the caller may not see it. */
export async function getOrganization(ctx: RequestContext, ref: string): Promise<OrganizationView> {
  requireUser(ctx);
  const access = accessPredicate(ctx, 'view_organization', 'organization', 'o');
  const row = await organizationRepository.findOne(ctx.platform.pool, {
    access,
    includeDeleted: false,
    ref: isUuid(ref) ? { uuid: ref.toLowerCase() } : { slug: ref },
  });
  if (!row) throw errors.notFound('Organization not found.');
  return toOrganizationView(row);
}
