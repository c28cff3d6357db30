// Reads of the audit trail (written by audit-log.ts): an organization's trail and the whole
// trail, with filters.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { pageRequest, type ListInput, type ListResult } from '../core/listing.js';
import { auditRepository, type AuditFilter, type AuditRecord } from './audit.repository.js';
import { requireOrganization } from './organization.service.js';

// Reads: an organization's trail (owners, manage_organization, staff) and the whole trail
// (staff). Entries other modules write with an organizationId show in the organization's.

/** Services answer the entries as the repository reads them; each transport renders its own view. */
export type { AuditRecord };

/** Audit filters (exact matches, at most 100 characters each). */
export interface AuditListInput extends Omit<ListInput, 'search' | 'ordering'> {
  objectType?: string | null;
  objectId?: string | null;
  action?: string | null;
  actor?: string | null;
}

function filters(input: AuditListInput): AuditFilter {
  const text = (value: string | null | undefined, name: string) => {
    const v = value?.trim();
    if (v && v.length > 100) throw errors.field(name, 'At most 100 characters.');
    return v || undefined;
  };
  return {
    objectType: text(input.objectType, 'object_type'),
    objectId: text(input.objectId, 'object_id'),
    action: text(input.action, 'action'),
    actor: text(input.actor, 'actor'),
  };
}

/** An organization's trail (`includeDeleted` reads a deleted organization's). */
export async function listOrganizationAudit(
  ctx: RequestContext,
  orgRef: string,
  input: AuditListInput & { includeDeleted?: boolean | null },
): Promise<ListResult<AuditRecord>> {
  const includeDeleted = input.includeDeleted ?? false;
  const org = await requireOrganization(ctx, orgRef, { permission: 'manage_organization', includeDeleted });
  const page = pageRequest(input);
  const { rows, count } = await auditRepository.list(ctx.platform.pool, { ...filters(input), organizationId: org.id }, page);
  return { page, count, items: rows };
}

/** Every entry, staff only; `organization` narrows to one (slug or UUID). */
export async function listAudit(
  ctx: RequestContext,
  input: AuditListInput & { organization?: string | null },
): Promise<ListResult<AuditRecord>> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (ctx.principal.kind !== 'user' || !(ctx.principal.isStaff || ctx.principal.isSuperuser)) throw errors.permissionDenied();
  const page = pageRequest(input);
  const orgRef = input.organization;
  const organizationId = orgRef ? (await requireOrganization(ctx, orgRef, { includeDeleted: true })).id : undefined;
  const { rows, count } = await auditRepository.list(ctx.platform.pool, { ...filters(input), organizationId }, page);
  return { page, count, items: rows };
}
