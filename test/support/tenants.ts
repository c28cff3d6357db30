// Organizations, sites, domains and apps inserted directly with SQL, for tests of modules
// that need a tenant to exist.
import type { Platform } from '../../subgraphs/core/platform.js';

const one = async (platform: Platform, sql: string, params: unknown[]) => (await platform.pool.query(sql, params)).rows[0];

export async function insertOrg(platform: Platform, slug: string, ownerId?: number): Promise<{ id: number; uuid: string }> {
  const row = await one(platform, 'INSERT INTO organizations (slug, name) VALUES ($1, $2) RETURNING id, uuid', [slug, slug.toUpperCase()]);
  if (ownerId !== undefined) {
    await one(platform, `INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [row.id, ownerId]);
  }
  return row;
}

export async function insertSite(platform: Platform, orgId: number, slug: string, host: string): Promise<{ id: number; uuid: string }> {
  const row = await one(
    platform,
    'INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ($1, $2, $3, $4) RETURNING id, uuid',
    [slug, `${slug} site`, orgId, slug.replace(/-/g, '_')],
  );
  await one(platform, 'INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ($1, $2, $3, true)', [
    host.replace(/\./g, '-'),
    host,
    row.id,
  ]);
  return row;
}

export async function insertApp(
  platform: Platform,
  siteId: number,
  slug: string,
  name = slug[0].toUpperCase() + slug.slice(1),
): Promise<{ id: number; uuid: string }> {
  return one(platform, 'INSERT INTO apps (site_id, slug, name) VALUES ($1, $2, $3) RETURNING id, uuid', [siteId, slug, name]);
}
