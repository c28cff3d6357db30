// Tenancy benchmarks (issue 3): a member whose permissions come through a group lists
// organizations (a page of 20) and reads a site by slug; the bare side runs one direct `pg`
// query for the same rows (a prepared statement, as the platform's are), with no access
// check, and returns them in the same shape.
import type { Benchmark, BenchEnv } from './bench-types.js';

async function world({ platform, user }: BenchEnv): Promise<{ siteSlug: string }> {
  const q = (sql: string, params: unknown[] = []) => platform.pool.query(sql, params);
  const existing = await q('SELECT slug FROM sites WHERE slug = $1', ['bench-site']);
  if (existing.rowCount) return { siteSlug: 'bench-site' };
  // 40 organizations the user belongs to (a full first page), 40 it does not.
  for (let i = 0; i < 80; i++) {
    const org = (
      await q('INSERT INTO organizations (slug, name) VALUES ($1, $2) RETURNING id', [
        `bench-org-${i}`,
        `Bench Org ${String(i).padStart(2, '0')}`,
      ])
    ).rows[0];
    if (i < 40) await q(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'member')`, [org.id, user.id]);
  }
  const org = (await q(`SELECT id FROM organizations WHERE slug = 'bench-org-0'`)).rows[0];
  const site = (
    await q(
      `INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ('bench-site', 'Bench site', $1, 'bench_site') RETURNING id`,
      [org.id],
    )
  ).rows[0];
  await q(`INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ('bench-site-localhost', 'bench-site.localhost', $1, true)`, [
    site.id,
  ]);
  // view_site reaches the user only through an organization group.
  const group = (
    await q(`INSERT INTO groups (name, scope, organization_id, permissions) VALUES ('viewers', 'organization', $1, $2) RETURNING id`, [
      org.id,
      ['view_site'],
    ])
  ).rows[0];
  await q('INSERT INTO group_members (group_id, user_id) VALUES ($1, $2)', [group.id, user.id]);
  return { siteSlug: 'bench-site' };
}

const iso = (d: Date) => d.toISOString();

export const TENANCY_BENCHMARKS: Benchmark[] = [
  {
    name: 'GET /api/organizations/ (20)',
    prepare: async (env) => {
      await world(env);
      return { method: 'GET', url: '/api/organizations/?page_size=20', headers: { authorization: `Bearer ${env.token}` } };
    },
    bare:
      ({ platform, user }) =>
      async (request) => {
        const { rows } = await platform.pool.query({
          name: 'bare_orgs',
          text: `SELECT o.id, o.uuid, o.slug, o.name, o.is_active, o.is_deleted, o.created_at, o.updated_at, count(*) OVER () AS total
           FROM organizations o JOIN memberships m ON m.organization_id = o.id
          WHERE m.user_id = $1 AND NOT o.is_deleted ORDER BY o.name, o.id LIMIT 20`,
          values: [user.id],
        });
        const total = Number(rows[0]?.total ?? 0);
        return {
          count: total,
          next: total > 20 ? `http://${request.headers.host}/api/organizations/?page_size=20&page=2` : null,
          previous: null,
          results: rows.map((o) => ({
            id: o.id,
            uuid: o.uuid,
            slug: o.slug,
            name: o.name,
            is_active: o.is_active,
            is_deleted: o.is_deleted,
            created: iso(o.created_at),
            updated: iso(o.updated_at),
          })),
        };
      },
  },
  {
    name: 'GET /api/sites/{slug}/ (group)',
    prepare: async (env) => {
      const { siteSlug } = await world(env);
      return { method: 'GET', url: `/api/sites/${siteSlug}/`, headers: { authorization: `Bearer ${env.token}` } };
    },
    bare:
      ({ platform }) =>
      async () => {
        const { rows } = await platform.pool.query({
          name: 'bare_site',
          text: `SELECT s.*, o.uuid AS organization_uuid, o.slug AS organization_slug FROM sites s JOIN organizations o ON o.id = s.organization_id WHERE s.slug = $1`,
          values: ['bench-site'],
        });
        const s = rows[0];
        return {
          uuid: s.uuid,
          slug: s.slug,
          name: s.name,
          description: s.description,
          schema_name: s.schema_name,
          environment: s.environment,
          site_settings: s.site_settings,
          is_active: s.is_active,
          organization: s.organization_slug,
          created_at: iso(s.created_at),
          updated_at: iso(s.updated_at),
        };
      },
  },
];
