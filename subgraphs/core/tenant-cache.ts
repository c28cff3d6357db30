// Host → site resolution for tenant detection, cached per process (platform.tenants). Writers
// of domains and sites publish a `tenant` invalidation, so a change takes effect at once here
// and within a second in every other process.
import type pg from 'pg';
import type { SiteRef } from './identity.js';
import type { Invalidation } from './invalidation.js';

interface Entry {
  site: SiteRef | null;
  expires: number;
}

/** A sites row (snake_case columns) as the context's SiteRef. */
export const toSiteRef = (r: Record<string, any>): SiteRef => ({
  id: r.id,
  uuid: r.uuid,
  slug: r.slug,
  name: r.name,
  schemaName: r.schema_name,
  organizationId: r.organization_id,
  environment: r.environment,
});

const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

export class TenantCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly pool: pg.Pool) {}

  async resolve(host: string): Promise<SiteRef | null> {
    const now = Date.now();
    const hit = this.entries.get(host);
    if (hit && hit.expires > now) return hit.site;
    const { rows } = await this.pool.query(
      `SELECT s.id, s.uuid, s.slug, s.name, s.schema_name, s.organization_id, s.environment
         FROM domains d
         JOIN sites s ON s.id = d.site_id
         JOIN organizations o ON o.id = s.organization_id
        WHERE d.domain = $1 AND d.is_active AND s.is_active AND NOT s.is_deleted AND o.is_active`,
      [host],
    );
    const site = rows[0] ? toSiteRef(rows[0]) : null;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(host, { site, expires: now + TTL_MS });
    return site;
  }

  apply(change: Invalidation): void {
    if (change.kind === 'tenant') this.invalidate(change.host);
    else if (change.kind === 'all') this.invalidate();
  }

  /** Forget one host, or everything (after a site-wide change). */
  invalidate(host?: string): void {
    if (host === undefined) this.entries.clear();
    else this.entries.delete(host.toLowerCase());
  }
}
