// Reads of the audit trail (entries are written by audit() in audit.service.ts).
import type pg from 'pg';
import { queryPage } from '../core/paged-query.js';
import type { PageRequest } from '../core/listing.js';

export interface AuditRow {
  id: number;
  actor: string | null;
  action: string;
  object_type: string;
  object_id: string;
  organization: string | null;
  changes: Record<string, unknown>;
  created_at: Date;
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
  async list(pool: pg.Pool, f: AuditFilter, page: PageRequest): Promise<{ rows: AuditRow[]; count: number }> {
    const w = where(f);
    return queryPage<AuditRow>(pool, {
      select: 'a.id, u.username AS actor, a.action, a.object_type, a.object_id, o.slug AS organization, a.changes, a.created_at',
      from: 'FROM audit_log a LEFT JOIN users u ON u.id = a.actor_id LEFT JOIN organizations o ON o.id = a.organization_id',
      where: w,
      orderBy: 'a.created_at DESC, a.id DESC',
      page,
    });
  },
};
