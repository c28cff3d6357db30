// Reads of the audit trail (entries are written by audit() in audit.service.ts).
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import type { PageRequest } from '../core/listing.js';

/** One entry of the trail as it is read: who (username), what, on which object, when. */
export interface AuditRecord {
  id: number;
  /** Username of the actor; null for a change made without a user (an API key). */
  actor: string | null;
  action: string;
  objectType: string;
  objectId: string;
  /** Slug of the organization the change belongs to. */
  organization: string | null;
  changes: Record<string, unknown>;
  createdAt: Date;
}

export interface AuditFilter {
  organizationId?: number;
  objectType?: string;
  objectId?: string;
  action?: string;
  actor?: string;
}

function where(f: AuditFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const clauses = ['TRUE'];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    clauses.push(sql(params.length));
  };
  if (f.organizationId !== undefined) add((n) => `a.organization_id = $${n}`, f.organizationId);
  if (f.objectType) add((n) => `a.object_type = $${n}`, f.objectType);
  if (f.objectId) add((n) => `a.object_id = $${n}`, f.objectId);
  if (f.action) add((n) => `a.action = $${n}`, f.action);
  if (f.actor) add((n) => `a.actor_id IN (SELECT id FROM users WHERE username = $${n})`, f.actor);
  return { sql: clauses.join(' AND '), params };
}

export const auditRepository = {
  /** Newest first; ties (entries of one transaction) in reverse order of writing. */
  async list(pool: pg.Pool, f: AuditFilter, page: PageRequest): Promise<{ rows: AuditRecord[]; count: number }> {
    const w = where(f);
    return queryPage<AuditRecord>(pool, {
      select: `a.id, u.username AS actor, a.action, a.object_type AS "objectType", a.object_id AS "objectId", o.slug AS organization,
        a.changes, a.created_at AS "createdAt"`,
      from: 'FROM audit_log a LEFT JOIN users u ON u.id = a.actor_id LEFT JOIN organizations o ON o.id = a.organization_id',
      where: w,
      orderBy: 'a.created_at DESC, a.id DESC',
      page,
    });
  },
};
