// Writes to the audit trail of console objects: who created, changed, deleted or restored
// what, and when. Entries are written inside the transaction of the change they record, so a
// change and its entry commit or roll back together. Values of secrets or passwords never go here.
import type { RequestContext } from '../core/context.js';
import type { Tx } from '../core/db.js';

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
