// The same GraphQL operations through the gateway with every subgraph in-process, and with
// every subgraph served over HTTP by its own server (DECISIONS §1 Scale-out, §11).
import { startGraphqlWorld, type GraphqlWorld, type Mode } from './graphql-fixtures.js';

const SHOP = 'shop.localhost';

describe.each<Mode>(['in-process', 'distributed'])('GraphQL gateway (%s)', (mode) => {
  let w: GraphqlWorld;
  let token: string;
  beforeAll(async () => {
    w = await startGraphqlWorld(mode);
    token = w.t.tokenFor(w.owner);
  });
  afterAll(() => w.close());

  test('me is the caller', async () => {
    const res = await w.gql('{ me { id username isStaff dateJoined } }', { token });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.me).toMatchObject({ id: w.owner.uuid, username: w.owner.username, isStaff: false });
    expect(new Date(res.body.data.me.dateJoined).toISOString()).toBe(res.body.data.me.dateJoined);
  });

  test('me without a token answers not_authenticated', async () => {
    const res = await w.gql('{ me { id } }');
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ path: ['me'], extensions: { code: 'not_authenticated', status: 401 } });
  });

  test('organization by slug and by UUID', async () => {
    const query = 'query ($ref: String!) { organization(slug: $ref) { id slug name isActive } }';
    const bySlug = await w.gql(query, { token, variables: { ref: 'acme' } });
    expect(bySlug.body.data.organization).toEqual({ id: w.acmeUuid, slug: 'acme', name: 'ACME', isActive: true });
    const byUuid = await w.gql(query, { token, variables: { ref: w.acmeUuid } });
    expect(byUuid.body.data.organization.slug).toBe('acme');
  });

  test("another's organization is not found", async () => {
    const res = await w.gql('{ organization(slug: "other") { id } }', { token });
    expect(res.body.data).toEqual({ organization: null });
    expect(res.body.errors[0]).toMatchObject({
      message: 'Organization not found.',
      path: ['organization'],
      extensions: { code: 'not_found', status: 404 },
    });
  });

  test('organizations is a connection; page size is clamped', async () => {
    const res = await w.gql('{ organizations(page: 1, pageSize: 500, search: "ac") { items { slug } total page pageSize } }', { token });
    expect(res.body.data.organizations).toEqual({ items: [{ slug: 'acme' }], total: 1, page: 1, pageSize: 100 });
    const bad = await w.gql('{ organizations(pageSize: 0) { total } }', { token });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'invalid', errors: { page_size: [expect.any(String)] } });
  });

  test('app spans five subgraphs in one request', async () => {
    const res = await w.gql(
      `{ app(slug: "shop") { id name site { slug organization { slug } }
           tables { items { name } total page pageSize } buckets { total } queries { total } functions { total } } }`,
      { token, host: SHOP },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.app).toEqual({
      id: w.shopAppUuid,
      name: 'Shop',
      site: { slug: 'shop-site', organization: { slug: 'acme' } },
      tables: { items: [], total: 0, page: 1, pageSize: 20 },
      buckets: { total: 0 },
      queries: { total: 0 },
      functions: { total: 0 },
    });
  });

  test('site with its secrets (secrets subgraph) and domains', async () => {
    const res = await w.gql(
      '{ site(slug: "shop-site") { name secrets(pageSize: 5) { items { key } total pageSize } domains { items { domain isPrimary site { slug } } total } } }',
      { token, host: SHOP },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.site).toEqual({
      name: 'shop-site site',
      secrets: { items: [], total: 0, pageSize: 5 },
      domains: { items: [{ domain: SHOP, isPrimary: true, site: { slug: 'shop-site' } }], total: 1 },
    });
  });

  test('an error thrown in another subgraph keeps its code through the gateway', async () => {
    const res = await w.gql('{ app(slug: "shop") { name tables(pageSize: -1) { total } } }', { token, host: SHOP });
    // `tables` is non-null, so its error nulls the app, as GraphQL prescribes.
    expect(res.body.data).toEqual({ app: null });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ path: ['app', 'tables'], extensions: { code: 'invalid', status: 400 } });
    expect(res.body.errors[0].extensions.errors.page_size).toHaveLength(1);
  });

  test("another tenant's app and site are never visible", async () => {
    const app = await w.gql('{ app(slug: "hidden") { id } }', { token: w.t.tokenFor(w.outsider), host: SHOP });
    expect(app.body.errors[0].extensions.code).toBe('permission_denied');
    const own = await w.gql('{ app(slug: "hidden") { id } }', { token, host: SHOP });
    expect(own.body.errors[0].extensions.code).toBe('not_found');
    const site = await w.gql('{ site(slug: "other-site") { id } }', { token: w.t.tokenFor(w.outsider), host: SHOP });
    expect(site.body.errors[0].extensions.code).toBe('not_found');
    // On the other tenant's host its owner sees it, and still nothing of this tenant.
    const there = await w.gql('{ site(slug: "shop-site") { id } }', { token: w.t.tokenFor(w.outsider), host: 'other.localhost' });
    expect(there.body.errors[0].extensions.code).toBe('not_found');
  });

  test('site on a platform host: any site the caller can view', async () => {
    const mine = await w.gql('{ site(slug: "shop-site") { slug } }', { token });
    expect(mine.body.data.site).toEqual({ slug: 'shop-site' });
    const theirs = await w.gql('{ site(slug: "other-site") { slug } }', { token });
    expect(theirs.body.errors[0].extensions.code).toBe('not_found');
  });

  test('app needs a tenant host', async () => {
    const res = await w.gql('{ app(slug: "shop") { id } }', { token });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'tenant_required', status: 400 });
  });

  test('invalid operations answer the REST codes', async () => {
    const syntax = await w.gql('{ me { ', { token });
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors[0].extensions.code).toBe('parse_error');
    const unknown = await w.gql('{ me { nope } }', { token });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].extensions.code).toBe('invalid');
    expect(unknown.body.errors[0].message).toMatch(/nope/);
  });

  test('GET with a query works (with the CSRF preflight header)', async () => {
    const res = await w.t.call('GET', `/graphql?query=${encodeURIComponent('{ me { username } }')}`, {
      token,
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.me.username).toBe(w.owner.username);
  });
});
