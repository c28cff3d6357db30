// The audit trail of console objects: who created, changed, deleted or restored what, and
// when. Entries are written inside the transaction of the change they record, so a change
// and its entry commit or roll back together. Values of secrets or passwords never go here.
import type { RequestContext } from '../core/context.js';
import type { Tx } from '../core/db.js';
import { errors } from '../core/errors.js';
import { param, parseBool, parsePage, type Query } from '../core/listing.js';
import { auditRepository, type AuditFilter, type AuditRow } from './audit.repository.js';
import { requireOrganization } from './organization.service.js';

export type AuditAction = 'create' | 'update' | 'delete' | 'restore' | 'purge' | string;

export interface AuditEntry {
  action: AuditAction;
  objectType: string;
  objectId: string | number;
  organizationId?: number | null;
  siteId?: number | null;
  /** Changed attributes (names → new values); never secret values or passwords. */
  changes?: Record<string, unknown>;
}

const REDACTED_KEYS = /pass(word)?|secret|token|key_hash|password_hash/i;

function redact(changes: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, REDACTED_KEYS.test(k) ? '[changed]' : v]));
}

export function actorId(ctx: RequestContext): number | null {
  return ctx.principal.kind === 'user' ? ctx.principal.userId : null;
}

export async function audit(db: Tx, ctx: RequestContext, entry: AuditEntry): Promise<void> {
  await db.auditLog.create({
    data: {
      actorId: actorId(ctx),
      action: entry.action,
      objectType: entry.objectType,
      objectId: String(entry.objectId),
      organizationId: entry.organizationId ?? null,
      siteId: entry.siteId ?? null,
      changes: JSON.parse(JSON.stringify(redact(entry.changes))),
    },
  });
}

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
