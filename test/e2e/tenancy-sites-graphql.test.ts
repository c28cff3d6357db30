// The sites area through GraphQL: the same service functions as REST, so the same results
// and the same error codes (extensions.code) for sites, domains, apps and API keys.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

let t: TestApp;
let owner: User, outsider: User;
let token: string, outsiderTok: string;

const gql = (query: string, variables: Record<string, unknown> = {}, opts: { token?: string; host?: string } = {}) =>
  t.call('POST', '/graphql', { body: { query, variables }, token: opts.token ?? token, host: opts.host });

const SITE_FIELDS = 'id slug name description environment siteSettings organization { slug } domains { items { domain isPrimary } total }';

beforeAll(async () => {
  t = await startTestApp();
  [owner, outsider] = await Promise.all([t.createUser(), t.createUser()]);
  [token, outsiderTok] = [t.tokenFor(owner), t.tokenFor(outsider)];
  await insertOrg(t.platform, 'acme', owner.id);
  await insertOrg(t.platform, 'other', outsider.id);
});
afterAll(() => t.close());

test('createSite and updateSite give what REST reads back; sites() matches GET /api/sites/', async () => {
  const created = await gql(`mutation($input: CreateSiteInput!) { createSite(organization: "acme", input: $input) { ${SITE_FIELDS} } }`, {
    input: { name: 'Graph Shop', environment: 'testing', siteSettings: { a: [1] } },
  });
  expect(created.body.errors).toBeUndefined();
  const site = created.body.data.createSite;
  expect(site).toMatchObject({
    slug: 'graph-shop',
    environment: 'testing',
    siteSettings: { a: [1] },
    organization: { slug: 'acme' },
    domains: { items: [{ domain: 'graph-shop.localhost', isPrimary: true }], total: 1 },
  });
  const rest = await t.call('GET', '/api/sites/graph-shop/', { token });
  expect(rest.body).toMatchObject({
    uuid: site.id,
    name: 'Graph Shop',
    environment: 'testing',
    site_settings: { a: [1] },
    schema_name: 'graph_shop',
  });

  const updated = await gql('mutation { updateSite(slug: "graph-shop", input: {description: "via graphql"}) { description name } }');
  expect(updated.body.data.updateSite).toEqual({ description: 'via graphql', name: 'Graph Shop' });
  expect((await t.call('GET', `/api/sites/${site.id}/`, { token })).body.description).toBe('via graphql');

  await t.call('POST', '/api/organizations/acme/sites/', { token, body: { name: 'Rest Shop' } });
  const list = await gql('{ sites(pageSize: 10) { items { id slug } total page pageSize } }');
  const restList = await t.call('GET', '/api/sites/?page_size=10', { token });
  expect(list.body.data.sites.total).toBe(restList.body.count);
  expect(list.body.data.sites.items.map((s: any) => s.slug)).toEqual(restList.body.results.map((s: any) => s.slug));
  expect((await gql('{ sites(search: "rest") { items { slug } } }')).body.data.sites.items).toEqual([{ slug: 'rest-shop' }]);
});

test('errors carry the REST codes', async () => {
  const bad = await gql('mutation { createSite(organization: "acme", input: {name: "x", environment: "prod"}) { id } }');
  expect(bad.body.errors[0].extensions).toMatchObject({ code: 'invalid', status: 400, errors: { environment: expect.any(Array) } });
  const foreign = await gql('mutation { createSite(organization: "acme", input: {name: "x"}) { id } }', {}, { token: outsiderTok });
  expect(foreign.body.errors[0].extensions.code).toBe('not_found');
  const hidden = await gql('mutation { updateSite(slug: "graph-shop", input: {name: "x"}) { id } }', {}, { token: outsiderTok });
  expect(hidden.body.errors[0].extensions.code).toBe('not_found');
  const anon = await t.call('POST', '/graphql', { body: { query: '{ sites { total } }' } });
  expect(anon.body.errors[0].extensions.code).toBe('not_authenticated');
});

test('domains: create, switch primary, delete, same results as REST', async () => {
  const created = await gql(
    'mutation { createDomain(site: "graph-shop", input: {domain: "G.Example.Test", isPrimary: true}) { id slug domain isPrimary } }',
  );
  expect(created.body.data.createDomain).toMatchObject({ slug: 'g-example-test', domain: 'g.example.test', isPrimary: true });
  const rest = await t.call('GET', '/api/sites/graph-shop/domains/', { token });
  expect(rest.body.results.map((d: any) => [d.domain, d.is_primary])).toEqual([
    ['g.example.test', true],
    ['graph-shop.localhost', false],
  ]);
  const conflict = await gql('mutation { createDomain(site: "rest-shop", input: {domain: "g.example.test"}) { id } }');
  expect(conflict.body.errors[0].extensions.code).toBe('conflict');
  const refused = await gql('mutation { deleteDomain(site: "graph-shop", domain: "g-example-test") { id } }');
  expect(refused.body.errors[0].extensions.code).toBe('invalid');
  const switched = await gql(
    'mutation { updateDomain(site: "graph-shop", domain: "graph-shop-localhost", input: {isPrimary: true}) { isPrimary } }',
  );
  expect(switched.body.data.updateDomain.isPrimary).toBe(true);
  expect(
    (await gql('mutation { deleteDomain(site: "graph-shop", domain: "g-example-test") { slug domain } }')).body.data.deleteDomain,
  ).toEqual({ slug: 'g-example-test', domain: 'g.example.test' });
  expect((await t.call('GET', '/api/sites/graph-shop/domains/g-example-test/', { token })).status).toBe(404);
});

test('apps and API keys on the tenant host; the created key authenticates', async () => {
  const host = 'graph-shop.localhost';
  const app = await gql('mutation { createApp(input: {name: "Graph App", description: "d"}) { id slug name description } }', {}, { host });
  expect(app.body.data.createApp).toMatchObject({ slug: 'graph-app', name: 'Graph App', description: 'd' });
  const rest = await t.call('GET', '/api/apps/graph-app/', { token, host });
  expect(rest.body).toMatchObject({ uuid: app.body.data.createApp.id, name: 'Graph App', table_count: 0 });
  const upd = await gql('mutation { updateApp(slug: "graph-app", input: {name: "Renamed"}) { name slug } }', {}, { host });
  expect(upd.body.data.updateApp).toEqual({ name: 'Renamed', slug: 'graph-app' });
  expect((await gql('{ apps { items { slug } total } }', {}, { host })).body.data.apps).toEqual({
    items: [{ slug: 'graph-app' }],
    total: 1,
  });

  const key = await gql(
    'mutation { createApiKey(app: "graph-app", name: "gql") { key apiKey { id keyId name prefix revokedAt } } }',
    {},
    { host },
  );
  const { key: secret, apiKey } = key.body.data.createApiKey;
  expect(apiKey).toMatchObject({ name: 'gql', revokedAt: null });
  const listed = await t.call('GET', '/api/apps/graph-app/api-keys/', { token, host });
  expect(listed.body.results).toMatchObject([{ id: apiKey.keyId, uuid: apiKey.id, prefix: apiKey.prefix }]);
  expect((await gql('{ apiKeys(app: "graph-app") { total items { prefix } } }', {}, { host })).body.data.apiKeys.total).toBe(1);
  const viaKey = await t.call('GET', '/api/apps/', { host, headers: { authorization: `Api-Key ${secret}` } });
  expect(viaKey.status).toBe(200);
  const revoked = await gql(`mutation { revokeApiKey(app: "graph-app", id: "${apiKey.id}") { id keyId revokedAt } }`, {}, { host });
  expect(revoked.body.data.revokeApiKey).toEqual({ id: apiKey.id, keyId: apiKey.keyId, revokedAt: expect.any(String) });
  const restKey = (await t.call('GET', '/api/apps/graph-app/api-keys/', { token, host })).body.results[0];
  expect(restKey.revoked_at).toBe(revoked.body.data.revokeApiKey.revokedAt);
  expect((await t.call('GET', '/api/apps/', { host, headers: { authorization: `Api-Key ${secret}` } })).status).toBe(401);

  expect((await gql('mutation { deleteApp(slug: "graph-app") { id slug } }', {}, { host })).body.data.deleteApp).toEqual({
    id: app.body.data.createApp.id,
    slug: 'graph-app',
  });
  expect((await t.call('GET', '/api/apps/graph-app/', { token, host })).status).toBe(404);
  const tenantless = await gql('mutation { createApp(input: {name: "x"}) { id } }');
  expect(tenantless.body.errors[0].extensions.code).toBe('tenant_required');
});

test('deleteSite and restoreSite', async () => {
  expect((await gql('mutation { deleteSite(slug: "rest-shop") { slug name } }')).body.data.deleteSite).toEqual({
    slug: 'rest-shop',
    name: 'Rest Shop',
  });
  expect((await t.call('GET', '/api/sites/rest-shop/', { token })).status).toBe(404);
  expect((await gql('mutation { restoreSite(slug: "rest-shop") { slug } }')).body.data.restoreSite).toEqual({ slug: 'rest-shop' });
  expect((await t.call('GET', '/api/sites/rest-shop/', { token })).status).toBe(200);
  const purge = await gql('mutation { deleteSite(slug: "rest-shop", purge: true) { id } }');
  expect(purge.body.errors[0].extensions.code).toBe('permission_denied');
});
