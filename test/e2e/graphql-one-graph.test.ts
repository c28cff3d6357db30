// One graph (issue 11 item 3, DECISIONS §11): from `me` down to records in one GraphQL query,
// through the entity fields of every subgraph (Organization.sites, Site.domains, Site.apps,
// App.apiKeys, App.tables, DataTable.records, App.buckets, App.queries, App.functions), each
// compared with the REST answer for the same objects. Then the same fields for callers without
// the rights they need: refused with the REST code, or an empty list where REST lists nothing.
import { jest } from '@jest/globals';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

const HOST = 'walk.graph.test';
const OTHER_HOST = 'elsewhere.graph.test';

let t: TestApp;
let owner: User, viewer: User, outsider: User;
let ownerTok: string, viewerTok: string, outsiderTok: string;
let site: { id: number; uuid: string };

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;

const gql = (query: string, token: string, host = HOST, variables: Record<string, unknown> = {}) =>
  t.call('POST', '/graphql', { host, token, body: { query, variables } });

async function rest(path: string, token = ownerTok, host = HOST) {
  const res = await t.call('GET', path, { host, token });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

async function post(path: string, body: unknown, token = ownerTok, host = HOST) {
  const res = await t.call('POST', path, { host, token, body });
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

beforeAll(async () => {
  t = await startTestApp();
  [owner, viewer, outsider] = await Promise.all([t.createUser(), t.createUser(), t.createUser()]);
  [ownerTok, viewerTok, outsiderTok] = [owner, viewer, outsider].map((u) => t.tokenFor(u));

  const org = await insertOrg(t.platform, 'walk-org', owner.id);
  site = await insertSite(t.platform, org.id, 'walk-site', HOST);
  // A second site of the organization, served elsewhere: on HOST only HOST's site exists.
  await insertSite(t.platform, org.id, 'walk-elsewhere', OTHER_HOST);
  await insertOrg(t.platform, 'walk-outsiders', outsider.id);
  // The viewer sees the site and nothing more (no module rights, no site administration).
  await q(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{view_site}')`, [
    org.id,
    viewer.id,
  ]);

  await insertApp(t.platform, site.id, 'shop');
  await insertApp(t.platform, site.id, 'blog');
  await post(`/api/sites/walk-site/domains/`, { domain: 'www.walk.graph.test' }, ownerTok, 'localhost');
  await post('/api/apps/shop/api-keys/', { name: 'ci' });
  await post('/api/apps/shop/api-keys/', { name: 'mobile' });
  await createTables(t, { host: HOST, token: ownerTok, app: 'shop' }, [
    {
      name: 'authors',
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'name', type: 'string' },
        ],
        primaryKey: ['id'],
      },
    },
    {
      name: 'posts',
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'title', type: 'string' },
          { name: 'views', type: 'integer' },
        ],
        primaryKey: ['id'],
      },
    },
  ]);
  await post('/api/apps/shop/datatables/authors/data/', [
    { id: 1, name: 'Ada' },
    { id: 2, name: 'Grace' },
  ]);
  await post('/api/apps/shop/datatables/posts/data/', [
    { id: 1, title: 'One', views: 10 },
    { id: 2, title: 'Two', views: 20 },
    { id: 3, title: 'Three', views: 30 },
  ]);
  await post('/api/apps/shop/storage/buckets/', { name: 'Media', slug: 'media' });
  await post('/api/apps/shop/analytics/queries/', { name: 'Popular', connection_type: 'internal', query_text: 'SELECT id FROM posts' });
  await post('/api/apps/shop/functions/', { name: 'Adder', code: 'async function main(p) { return p.a + p.b; }' });
}, 120_000);
afterAll(() => t?.close());

const WALK = `query Walk {
  me {
    id
    username
    organizations(pageSize: 2) {
      total
      items {
        id
        slug
        name
        sites(pageSize: 2) {
          total
          items {
            id
            slug
            name
            domains(pageSize: 5) { total items { id domain isPrimary } }
            apps(pageSize: 3) {
              total
              items {
                id
                slug
                name
                apiKeys(pageSize: 5) { total items { id keyId name prefix } }
                tables(pageSize: 5) {
                  total
                  items { name provider rowCount records(sort: ["id"], pageSize: 5) { total items { id data } } }
                }
                buckets(pageSize: 5) { total items { id slug name } }
                queries(pageSize: 5) { total items { id slug name } }
                functions(pageSize: 5) { total items { id slug name } }
              }
            }
          }
        }
      }
    }
  }
}`;

test('one query walks from me down to records, and every level answers as REST does', async () => {
  const res = await gql(WALK, ownerTok);
  expect(res.body.errors).toBeUndefined();
  const me = res.body.data.me;

  const restMe = await rest('/api/users/me/');
  expect(me).toMatchObject({ id: restMe.uuid, username: restMe.username });

  const restOrgs = await rest('/api/organizations/');
  expect(me.organizations.total).toBe(restOrgs.count);
  expect(me.organizations.items.map((o: any) => ({ id: o.id, slug: o.slug, name: o.name }))).toEqual(
    restOrgs.results.map((o: any) => ({ id: o.uuid, slug: o.slug, name: o.name })),
  );
  const org = me.organizations.items.find((o: any) => o.slug === 'walk-org');

  // On the site's host only that site exists, through REST as through GraphQL.
  const restSites = await rest('/api/organizations/walk-org/sites/');
  expect(org.sites.total).toBe(restSites.count);
  expect(org.sites.items.map((s: any) => ({ id: s.id, slug: s.slug, name: s.name }))).toEqual(
    restSites.results.map((s: any) => ({ id: s.uuid, slug: s.slug, name: s.name })),
  );
  expect(org.sites.items.map((s: any) => s.slug)).toEqual(['walk-site']);
  const walkSite = org.sites.items[0];

  const restDomains = await rest('/api/sites/walk-site/domains/');
  expect(walkSite.domains.total).toBe(restDomains.count);
  expect(walkSite.domains.items).toEqual(restDomains.results.map((d: any) => ({ id: d.uuid, domain: d.domain, isPrimary: d.is_primary })));

  const restApps = await rest('/api/apps/');
  expect(walkSite.apps.total).toBe(restApps.count);
  expect(walkSite.apps.items.map((a: any) => ({ id: a.id, slug: a.slug, name: a.name }))).toEqual(
    restApps.results.map((a: any) => ({ id: a.uuid, slug: a.slug, name: a.name })),
  );
  const shop = walkSite.apps.items.find((a: any) => a.slug === 'shop');

  const restKeys = await rest('/api/apps/shop/api-keys/');
  expect(shop.apiKeys.total).toBe(restKeys.count);
  expect(shop.apiKeys.items).toEqual(restKeys.results.map((k: any) => ({ id: k.uuid, keyId: k.id, name: k.name, prefix: k.prefix })));

  const restTables = await rest('/api/apps/shop/datatables/');
  expect(shop.tables.total).toBe(restTables.total);
  expect(shop.tables.items.map((x: any) => ({ name: x.name, provider: x.provider, rowCount: x.rowCount }))).toEqual(
    restTables.data.map((x: any) => ({ name: x.name, provider: x.provider, rowCount: x.row_count })),
  );
  for (const table of shop.tables.items) {
    const restRecords = await rest(`/api/apps/shop/datatables/${table.name}/data/?ordering=id`);
    expect(table.records.total).toBe(restRecords.total);
    expect(table.records.items.map((r: any) => r.data)).toEqual(restRecords.data);
    expect(table.records.items.map((r: any) => r.id)).toEqual(restRecords.data.map((r: any) => String(r.id)));
  }
  expect(shop.tables.items.find((x: any) => x.name === 'posts').records.total).toBe(3);

  const restBuckets = await rest('/api/apps/shop/storage/buckets/');
  expect(shop.buckets.total).toBe(restBuckets.total);
  expect(shop.buckets.items).toEqual(restBuckets.data.map((b: any) => ({ id: String(b.id), slug: b.slug, name: b.name })));

  const restQueries = await rest('/api/apps/shop/analytics/queries/');
  expect(shop.queries.total).toBe(restQueries.total);
  expect(shop.queries.items).toEqual(restQueries.data.map((x: any) => ({ id: x.id, slug: x.slug, name: x.name })));

  const restFunctions = await rest('/api/apps/shop/functions/');
  expect(shop.functions.total).toBe(restFunctions.count);
  expect(shop.functions.items).toEqual(restFunctions.results.map((f: any) => ({ id: String(f.id), slug: f.slug, name: f.name })));

  // The other app of the site has nothing yet, and says so (not an error, not another app's).
  const blog = walkSite.apps.items.find((a: any) => a.slug === 'blog');
  expect([blog.apiKeys.total, blog.tables.total, blog.buckets.total, blog.queries.total, blog.functions.total]).toEqual([0, 0, 0, 0, 0]);
});

test('DataTable.records takes the records arguments, also under datatable(app, name)', async () => {
  const res = await gql(
    `{ datatable(app: "shop", name: "posts") { records(filter: {views__gte: 20}, sort: ["-views"], pageSize: 1) { total page pageSize items { id } } } }`,
    ownerTok,
  );
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.datatable.records).toEqual({ total: 2, page: 1, pageSize: 1, items: [{ id: '3' }] });
  const restPage = await rest('/api/apps/shop/datatables/posts/data/?views__gte=20&ordering=-views&page_size=1');
  expect(restPage).toMatchObject({ total: 2, data: [{ id: 3 }] });
});

test('a member with view_site only walks to the apps; the fields needing more are refused with the REST code', async () => {
  const walk = await gql(
    `{ me { organizations(pageSize: 5) { items { slug sites(pageSize: 5) { items { slug apps(pageSize: 5) { total items { slug } } } } } } } }`,
    viewerTok,
  );
  expect(walk.body.errors).toBeUndefined();
  const sites = walk.body.data.me.organizations.items.flatMap((o: any) => o.sites.items);
  const restApps = await rest('/api/apps/', viewerTok);
  expect(sites.map((s: any) => s.slug)).toEqual(['walk-site']);
  expect(sites[0].apps.items.map((a: any) => a.slug)).toEqual(restApps.results.map((a: any) => a.slug));

  const refused = async (field: string, restPath: string) => {
    const g = await gql(`{ site(slug: "walk-site") { apps { items { slug ${field} } } } }`, viewerTok);
    const r = await t.call('GET', restPath, { host: HOST, token: viewerTok });
    expect([restPath, r.status]).toEqual([restPath, 403]);
    expect(g.body.data?.site ?? null).toBeNull();
    expect(g.body.errors[0].extensions).toMatchObject({ code: 'permission_denied', status: 403 });
    expect(g.body.errors[0].path).toContain(field.split(/[ ({]/)[0]);
  };
  await refused('apiKeys { total }', '/api/apps/shop/api-keys/');
  await refused('tables { total }', '/api/apps/shop/datatables/');
  await refused('queries { total }', '/api/apps/shop/analytics/queries/');
  // Storage lists the buckets the caller may see (public ones, or all with storage:read):
  // none here, through REST as through GraphQL.
  const buckets = await gql(`{ app(slug: "shop") { buckets { total items { slug } } } }`, viewerTok);
  const restBuckets = await rest('/api/apps/shop/storage/buckets/', viewerTok);
  expect(restBuckets.total).toBe(0);
  expect(buckets.body).toEqual({ data: { app: { buckets: { total: 0, items: [] } } } });
  await refused('functions { total }', '/api/apps/shop/functions/');
});

test('an outsider reaches only their own organization, whose sites do not include this one', async () => {
  const walk = await gql(`{ me { organizations { total items { slug sites { total items { slug } } } } } }`, outsiderTok);
  expect(walk.body.errors).toBeUndefined();
  expect(walk.body.data.me.organizations).toEqual({ total: 1, items: [{ slug: 'walk-outsiders', sites: { total: 0, items: [] } }] });
  const hidden = await gql(`{ organization(slug: "walk-org") { sites { total } } }`, outsiderTok, 'localhost');
  expect(hidden.body.errors[0].extensions.code).toBe('not_found');
  // On the site's host an outsider is refused the site's apps, as GET /api/apps/ refuses them.
  const apps = await gql(`{ apps { total } }`, outsiderTok);
  expect(apps.body.errors[0].extensions.code).toBe('permission_denied');
});

test("User.organizations is the caller's own: null on another user", async () => {
  const res = await gql(`{ user(slug: "${viewer.uuid}") { id organizations { total } } me { organizations { total } } }`, ownerTok);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.user).toEqual({ id: viewer.uuid, organizations: null });
  expect(res.body.data.me.organizations.total).toBe(1);
});

test('on a platform host Site.apps lists the apps of any site the caller can view; host-bound lists say tenant_required', async () => {
  const res = await gql(`{ site(slug: "walk-site") { apps { total items { slug } } } }`, viewerTok, 'localhost');
  expect(res.body.errors).toBeUndefined();
  const restApps = await rest('/api/apps/', viewerTok);
  expect(res.body.data.site.apps.items.map((a: any) => a.slug)).toEqual(restApps.results.map((a: any) => a.slug));
  expect(res.body.data.site.apps.total).toBe(restApps.count);

  const hidden = await gql(`{ site(slug: "walk-site") { apps { total } } }`, outsiderTok, 'localhost');
  expect(hidden.body.errors[0].extensions.code).toBe('not_found');

  const keys = await gql(`{ site(slug: "walk-site") { apps { items { apiKeys { total } } } } }`, ownerTok, 'localhost');
  expect(keys.body.errors[0].extensions.code).toBe('tenant_required');
  const records = await gql(
    `{ site(slug: "walk-site") { apps { items { tables { items { records { total } } } } } } }`,
    ownerTok,
    'localhost',
  );
  expect(records.body.errors[0].extensions.code).toBe('tenant_required');
});

test('an API key sees its own app only under Site.apps', async () => {
  const created = await post('/api/apps/blog/api-keys/', { name: 'walk' });
  const res = await t.call('POST', '/graphql', {
    host: HOST,
    headers: { authorization: `Api-Key ${created.key}` },
    body: { query: `{ app(slug: "blog") { site { apps { total items { slug } } } } }` },
  });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.app.site.apps).toEqual({ total: 1, items: [{ slug: 'blog' }] });
});

test('AnalyticsQuery.executions lists the runs REST lists', async () => {
  await post('/api/apps/shop/analytics/queries/popular/execute/', { params: {} });
  const res = await gql(
    `{ app(slug: "shop") { queries { items { slug executions { total items { executionKey status rowCount } } } } } }`,
    ownerTok,
  );
  expect(res.body.errors).toBeUndefined();
  const restRuns = await rest('/api/apps/shop/analytics/queries/popular/executions/');
  const popular = res.body.data.app.queries.items.find((x: any) => x.slug === 'popular');
  expect(popular.executions.total).toBe(1);
  expect(popular.executions.items).toEqual(
    (restRuns.data ?? restRuns.results).map((e: any) => ({ executionKey: e.execution_key, status: e.status, rowCount: e.row_count })),
  );
  const refused = await gql(`{ app(slug: "shop") { queries { items { executions { total } } } } }`, viewerTok);
  expect(refused.body.errors[0].extensions.code).toBe('permission_denied');
});

test('Organization.sites under a list: one batch for all organizations, each page as REST answers it', async () => {
  for (const n of [1, 2, 3]) {
    const org = await insertOrg(t.platform, `batch-org-${n}`, owner.id);
    for (let i = 0; i < n; i++) await insertSite(t.platform, org.id, `batch-${n}-site-${i}`, `batch-${n}-${i}.graph.test`);
  }
  const pool = t.platform.pool;
  const original = pool.query.bind(pool);
  const statements: string[] = [];
  const spy = jest.spyOn(pool, 'query').mockImplementation(((q: any, ...rest: any[]) => {
    statements.push(typeof q === 'string' ? q : q.text);
    return (original as any)(q, ...rest);
  }) as any);
  let res;
  try {
    res = await gql(
      `{ me { organizations(search: "batch-org", pageSize: 5) { items { slug sites(page: 2, pageSize: 1) { total page items { slug } } } } } }`,
      ownerTok,
      'localhost',
    );
  } finally {
    spy.mockRestore();
  }
  expect(res.body.errors).toBeUndefined();
  const orgs = res.body.data.me.organizations.items;
  expect(orgs.map((o: any) => o.slug)).toEqual(['batch-org-1', 'batch-org-2', 'batch-org-3']);
  for (const o of orgs) {
    const restPage = await rest(`/api/organizations/${o.slug}/sites/?page_size=1&page=2`, ownerTok, 'localhost').catch(() => null);
    const restAll = await rest(`/api/organizations/${o.slug}/sites/?page_size=1`, ownerTok, 'localhost');
    expect(o.sites.total).toBe(restAll.count);
    expect(o.sites.items.map((s: any) => s.slug)).toEqual(restPage ? restPage.results.map((s: any) => s.slug) : []);
  }
  // One statement for the pages of all three organizations, one for their counts.
  expect(statements.filter((s) => /FROM sites s JOIN organizations o/.test(s))).toHaveLength(2);
});

test('a member without view_site sees the organization and, like REST, none of its sites', async () => {
  const plain = await t.createUser();
  const tok = t.tokenFor(plain);
  const [{ id: orgId }] = await q(`SELECT id FROM organizations WHERE slug = 'walk-org'`);
  await q(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{}')`, [orgId, plain.id]);
  const res = await gql(`{ organization(slug: "walk-org") { slug sites { total items { slug } } } }`, tok, 'localhost');
  expect(res.body.errors).toBeUndefined();
  const restSites = await rest('/api/organizations/walk-org/sites/', tok, 'localhost');
  expect(restSites.count).toBe(0);
  expect(res.body.data.organization).toEqual({ slug: 'walk-org', sites: { total: 0, items: [] } });
  // The owner sees both sites of the organization on a platform host.
  const all = await gql(`{ organization(slug: "walk-org") { sites { total items { slug } } } }`, ownerTok, 'localhost');
  expect(all.body.data.organization.sites.items.map((s: any) => s.slug)).toEqual(['walk-elsewhere', 'walk-site']);
});
