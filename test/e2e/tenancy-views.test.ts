// The REST views of organizations, sites, domains and apps, rendered from the services' domain
// objects (organization-views.ts, site-views.ts): the seed's fields in the seed's order (the
// bytes clients see), and the GraphQL types mapped from the same objects with the same values.
import { startTestApp, type TestApp } from '../support/app.js';

const HOST = 'views-shop.localhost';

let t: TestApp;
let token: string;

const gql = (query: string, host?: string) => t.call('POST', '/graphql', { body: { query }, token, host });

const ORGANIZATION = ['id', 'uuid', 'slug', 'name', 'is_active', 'is_deleted', 'created', 'updated'];
const SITE = [
  'uuid',
  'slug',
  'name',
  'description',
  'schema_name',
  'environment',
  'site_settings',
  'is_active',
  'is_deleted',
  'organization',
  'created_at',
  'updated_at',
];
const DOMAIN = ['uuid', 'slug', 'domain', 'is_primary', 'is_active', 'site', 'created_at'];
const APP = ['id', 'uuid', 'name', 'slug', 'description', 'table_count', 'created_at', 'updated_at'];

beforeAll(async () => {
  t = await startTestApp();
  token = t.tokenFor(await t.createUser());
});
afterAll(() => t.close());

test('organizations: the same fields in the same order on every route; GraphQL maps the same values', async () => {
  const created = await t.call('POST', '/api/organizations/', { token, body: { name: 'Views Org' } });
  expect(created.status).toBe(201);
  expect(Object.keys(created.body)).toEqual(ORGANIZATION);
  expect(created.text).toBe(JSON.stringify(created.body));
  const one = await t.call('GET', '/api/organizations/views-org/', { token });
  expect(one.text).toBe(created.text);
  const list = await t.call('GET', '/api/organizations/', { token });
  expect(list.body.results.map((o: object) => Object.keys(o))).toEqual([ORGANIZATION]);
  const patched = await t.call('PATCH', '/api/organizations/views-org/', { token, body: { name: 'Views Org 2' } });
  expect(Object.keys(patched.body)).toEqual(ORGANIZATION);
  expect(patched.body).toMatchObject({ name: 'Views Org 2', is_active: true, is_deleted: false });

  const g = await gql('{ organization(slug: "views-org") { id slug name isActive createdAt updatedAt } }');
  expect(g.body.data.organization).toEqual({
    id: patched.body.uuid,
    slug: 'views-org',
    name: 'Views Org 2',
    isActive: true,
    createdAt: patched.body.created,
    updatedAt: patched.body.updated,
  });
  expect((await t.call('DELETE', '/api/organizations/views-org/', { token })).status).toBe(204);
  const restored = await t.call('POST', '/api/organizations/views-org/restore/', { token });
  expect(Object.keys(restored.body)).toEqual(ORGANIZATION);
  expect(restored.body).toMatchObject({ is_active: true, is_deleted: false });
});

test('sites, domains, apps and the site configuration: the seed fields in order; GraphQL maps the same values', async () => {
  await t.call('POST', '/api/organizations/', { token, body: { name: 'Views Shop Org', slug: 'views-shop-org' } });
  const site = await t.call('POST', '/api/organizations/views-shop-org/sites/', {
    token,
    body: { name: 'Views Shop', site_settings: { theme: 'dark' } },
  });
  expect(site.status).toBe(201);
  expect(Object.keys(site.body)).toEqual(SITE);
  expect(site.body).toMatchObject({ slug: 'views-shop', organization: 'views-shop-org', site_settings: { theme: 'dark' } });
  expect((await t.call('GET', '/api/sites/views-shop/', { token })).text).toBe(site.text);
  const sites = await t.call('GET', '/api/organizations/views-shop-org/sites/', { token });
  expect(sites.body.results.map((s: object) => Object.keys(s))).toEqual([SITE]);

  const domain = await t.call('POST', '/api/sites/views-shop/domains/', { token, body: { domain: 'views.example.test' } });
  expect(domain.status).toBe(201);
  expect(Object.keys(domain.body)).toEqual(DOMAIN);
  expect(domain.body).toMatchObject({ domain: 'views.example.test', is_primary: false, site: site.body.uuid });
  const domains = await t.call('GET', '/api/sites/views-shop/domains/', { token });
  expect(domains.body.results.map((d: object) => Object.keys(d))).toEqual([DOMAIN, DOMAIN]);
  expect((await t.call('GET', `/api/sites/views-shop/domains/${domain.body.slug}/`, { token })).text).toBe(domain.text);

  const app = await t.call('POST', '/api/apps/', { token, host: HOST, body: { name: 'Views App', description: 'd' } });
  expect(app.status).toBe(201);
  expect(Object.keys(app.body)).toEqual(APP);
  expect(app.body).toMatchObject({ slug: 'views-app', table_count: 0 });
  expect((await t.call('GET', '/api/apps/views-app/', { token, host: HOST })).text).toBe(app.text);
  const apps = await t.call('GET', '/api/apps/', { token, host: HOST });
  expect(apps.body.results.map((a: object) => Object.keys(a))).toEqual([APP]);

  const config = await t.call('GET', '/api/sites/config/', { token, host: HOST });
  expect(Object.keys(config.body)).toEqual(['site', 'organization', 'site_settings', 'primary_domain', 'domains']);
  expect(Object.keys(config.body.site)).toEqual(['uuid', 'slug', 'name', 'environment', 'schema_name']);
  expect(Object.keys(config.body.organization)).toEqual(['uuid', 'slug', 'name']);
  expect(config.body.domains.map((d: object) => Object.keys(d))).toEqual([
    ['uuid', 'slug', 'domain', 'is_primary', 'is_active'],
    ['uuid', 'slug', 'domain', 'is_primary', 'is_active'],
  ]);
  expect(config.body.primary_domain).toBe(HOST);

  const g = await gql(`{ site(slug: "views-shop") {
    id slug name description environment siteSettings createdAt updatedAt organization { slug }
    domains { items { id slug domain isPrimary isActive createdAt site { id } } }
    apps { items { id slug name description createdAt updatedAt site { id } } } } }`);
  expect(g.body.errors).toBeUndefined();
  expect(g.body.data.site).toEqual({
    id: site.body.uuid,
    slug: 'views-shop',
    name: 'Views Shop',
    description: '',
    environment: 'development',
    siteSettings: { theme: 'dark' },
    createdAt: site.body.created_at,
    updatedAt: site.body.updated_at,
    organization: { slug: 'views-shop-org' },
    domains: {
      items: domains.body.results.map((d: any) => ({
        id: d.uuid,
        slug: d.slug,
        domain: d.domain,
        isPrimary: d.is_primary,
        isActive: d.is_active,
        createdAt: d.created_at,
        site: { id: site.body.uuid },
      })),
    },
    apps: {
      items: [
        {
          id: app.body.uuid,
          slug: 'views-app',
          name: 'Views App',
          description: 'd',
          createdAt: app.body.created_at,
          updatedAt: app.body.updated_at,
          site: { id: site.body.uuid },
        },
      ],
    },
  });
  const c = await gql(
    '{ siteConfig { site { uuid slug name environment schemaName } organization { uuid slug name } siteSettings primaryDomain domains { uuid slug domain isPrimary isActive } } }',
    HOST,
  );
  expect(c.body.data.siteConfig).toEqual({
    site: {
      uuid: config.body.site.uuid,
      slug: config.body.site.slug,
      name: config.body.site.name,
      environment: config.body.site.environment,
      schemaName: config.body.site.schema_name,
    },
    organization: config.body.organization,
    siteSettings: config.body.site_settings,
    primaryDomain: config.body.primary_domain,
    domains: config.body.domains.map((d: any) => ({
      uuid: d.uuid,
      slug: d.slug,
      domain: d.domain,
      isPrimary: d.is_primary,
      isActive: d.is_active,
    })),
  });
});
