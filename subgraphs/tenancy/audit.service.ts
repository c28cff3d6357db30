// Reads of the audit trail (written by audit-log.ts): an organization's trail and the whole
// trail, with filters.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { param, parseBool, parsePage, type Query } from '../core/listing.js';
import { auditRepository, type AuditFilter, type AuditRow } from './audit.repository.js';
import { requireOrganization } from './organization.service.js';

// Reads: an organization's trail (owners, manage_organization, staff) and the whole trail
// (staff). Entries other modules write with an organizationId show in the organization's.

export type AuditView = Omit<AuditRow, 'created_at'> & { created_at: string };

export const toAuditView = (r: AuditRow): AuditView => ({ ...r, created_at: r.created_at.toISOString() });

function filters(query: Query): AuditFilter {
  const text = (name: string) => {
    const v = param(query, name)?.trim();
    if (v && v.length > 100) throw errors.field(name, 'At most 100 characters.');
    return v || undefined;
  };
  return { objectType: text('object_type'), objectId: text('object_id'), action: text('action'), actor: text('actor') };
}

/** `GET /api/organizations/{org}/audit/` (`?include_deleted=true` reads a deleted organization's). */
export async function listOrganizationAudit(ctx: RequestContext, orgRef: string, query: Query) {
  const includeDeleted = parseBool(query, 'include_deleted') ?? false;
  const org = await requireOrganization(ctx, orgRef, { permission: 'manage_organization', includeDeleted });
  const page = parsePage(query);
  const { rows, count } = await auditRepository.list(ctx.platform.pool, { ...filters(query), organizationId: org.id }, page);
  return { page, count, items: rows.map(toAuditView) };
}

/** `GET /api/audit/`: every entry, staff only; `?organization=` narrows to one (slug or UUID). */
export async function listAudit(ctx: RequestContext, query: Query) {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (ctx.principal.kind !== 'user' || !(ctx.principal.isStaff || ctx.principal.isSuperuser)) throw errors.permissionDenied();
  const page = parsePage(query);
  const orgRef = param(query, 'organization');
  const organizationId = orgRef ? (await requireOrganization(ctx, orgRef, { includeDeleted: true })).id : undefined;
  const { rows, count } = await auditRepository.list(ctx.platform.pool, { ...filters(query), organizationId }, page);
  return { page, count, items: rows.map(toAuditView) };
}
