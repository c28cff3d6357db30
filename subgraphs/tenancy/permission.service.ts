// `GET /api/permissions/`: the permission catalogue (any signed-in user). One page holds the
// whole catalogue by default (page_size default 100) so clients rarely need a second request.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { pageRequest, searchTerm, type ListInput } from '../core/listing.js';
import type { PermissionDef } from '../core/permissions.js';

export interface PermissionListInput extends Omit<ListInput, 'ordering'> {
  /** Permissions on this resource type (organization, site, …). */
  resource?: string | null;
}

export async function listPermissions(ctx: RequestContext, input: PermissionListInput) {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const page = pageRequest(input, { pageSize: 100, max: 100 });
  const resource = input.resource?.trim();
  const search = searchTerm(input.search)?.toLowerCase();
  const all: PermissionDef[] = ctx.platform.permissions.all.filter(
    (p) => (!resource || p.resource === resource) && (!search || p.codename.includes(search) || p.name.toLowerCase().includes(search)),
  );
  const items = all
    .slice(page.offset, page.offset + page.pageSize)
    .map((p) => ({ codename: p.codename, name: p.name, resource: p.resource }));
  return { page, count: all.length, items };
}
