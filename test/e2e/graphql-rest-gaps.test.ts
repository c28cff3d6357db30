// One graph, the rest of the REST reads (issue 11 item 3; docs/graphql.md "Shape of the graph"):
// secret types, tags and history (Site.secretTypes, secretType, secretTags, secretTag, secretHistory),
// the site's configuration (Query.siteConfig), a table's hierarchy (DataTable.hierarchy), one
// domain (Site.domain), one bucket (App.bucket) and one object's metadata (Bucket.object),
// each compared with the REST answer of the same read, then refused for a caller without the
// right (the REST code) and on a host that serves no site (tenant_required).
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { send } from '../support/storage.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

const HOST = 'gaps.graph.test';

let t: TestApp;
let owner: User, viewer: User, outsider: User;
let ownerTok: string, viewerTok: string, outsiderTok: string;

const gql = (query: string, token: string, host = HOST) => t.call('POST', '/graphql', { host, token, body: { query } });

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

const codeOf = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

beforeAll(async () => {
  t = await startTestApp();
  [owner, viewer, outsider] = await Promise.all([t.createUser(), t.createUser(), t.createUser()]);
  [ownerTok, viewerTok, outsiderTok] = [owner, viewer, outsider].map((u) => t.tokenFor(u));
  const org = await insertOrg(t.platform, 'gaps-org', owner.id);
  const site = await insertSite(t.platform, org.id, 'gaps-site', HOST);
  await insertOrg(t.platform, 'gaps-outsiders', outsider.id);
  // The viewer sees the site and nothing more (no secrets or data rights).
  await t.platform.pool.query(
    `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{view_site}')`,
    [org.id, viewer.id],
  );
  await insertApp(t.platform, site.id, 'shop');
  await post('/api/sites/gaps-site/domains/', { domain: 'www.gaps.graph.test' }, ownerTok, 'localhost');
  await post('/api/secret-types/', {
    name: 'Webhook',
    slug: 'webhook',
    description: 'A signing secret',
    schema: { type: 'object', properties: { secret: { type: 'string' } } },
  });
  await post('/api/tags/', { name: 'Payments', description: 'Card provider', color: '#ff0000' });
  await post('/api/tags/', { name: 'Mail' });
  await post('/api/secrets/', { secret_type: 'json', key: 'hook', value: { v: 'never-in-graphql' }, tags: ['payments'] });
  const replaced = await t.call('PUT', '/api/secrets/hook/', {
    host: HOST,
    token: ownerTok,
    body: { secret_type: 'json', value: { v: 'never-in-graphql-2' }, tags: ['mail'] },
  });
  if (replaced.status !== 200) throw new Error(`PUT secret: ${replaced.status} ${replaced.text}`);
  await createTables(t, { host: HOST, token: ownerTok, app: 'shop' }, [
    {
      name: 'categories',
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'name', type: 'string' },
          { name: 'parent', type: 'integer' },
        ],
        primaryKey: 'id',
        foreignKeys: [{ fields: 'parent', reference: { resource: 'categories', fields: 'id' } }],
        hierarchy: { parent_field: 'parent' },
      },
    },
  ]);
  for (const r of [
    { id: 1, name: 'root', parent: null },
    { id: 2, name: 'a', parent: 1 },
    { id: 3, name: 'b', parent: 1 },
    { id: 4, name: 'a1', parent: 2 },
    { id: 5, name: 'other', parent: null },
  ])
    await post('/api/apps/shop/datatables/categories/data/', r);
  await post('/api/apps/shop/storage/buckets/', { name: 'Media', slug: 'media' });
  const put = await send(t, 'PUT', '/api/apps/shop/storage/buckets/media/objects/docs/hello.txt', {
    host: HOST,
    token: ownerTok,
    headers: { 'content-type': 'text/plain' },
    payload: 'hello',
  });
  if (put.status !== 201) throw new Error(`PUT object: ${put.status}`);
  // A public bucket the viewer may read, with one object made private.
  await post('/api/apps/shop/storage/buckets/', { name: 'Open', slug: 'open', visibility: 'public' });
  const hidden = await send(t, 'PUT', '/api/apps/shop/storage/buckets/open/objects/hidden.txt', {
    host: HOST,
    token: ownerTok,
    headers: { 'content-type': 'text/plain' },
    payload: 'hidden',
  });
  const patched = await t.call('PATCH', `/api/apps/shop/storage/buckets/open/objects/${hidden.body.data.uuid}/`, {
    host: HOST,
    token: ownerTok,
    body: { visibility: 'private' },
  });
  if (patched.status !== 200) throw new Error(`PATCH object: ${patched.status} ${patched.text}`);
}, 120_000);
afterAll(() => t?.close());

const TYPE_FIELDS = 'slug name description type sensitivityLevel schema createdAt modifiedAt';
const TAG_FIELDS = 'name slug description color createdAt modifiedAt';

const typeOf = (r: any) => ({
  slug: r.slug,
  name: r.name,
  description: r.description,
  type: r.type,
  sensitivityLevel: r.sensitivity_level,
  schema: r.schema,
  createdAt: r.created_at,
  modifiedAt: r.modified_at,
});
const tagOf = (r: any) => ({
  name: r.name,
  slug: r.slug,
  description: r.description,
  color: r.color,
  createdAt: r.created_at,
  modifiedAt: r.modified_at,
});

describe('secret types and tags', () => {
  test('Site.secretTypes / secretType / secretTags / secretTag answer what REST answers', async () => {
    const res = await gql(
      `{ site(slug: "gaps-site") {
          secretTypes(pageSize: 100) { total page pageSize items { ${TYPE_FIELDS} } }
          custom: secretTypes(type: "custom") { total items { slug } }
          secretType(slug: "webhook") { ${TYPE_FIELDS} }
          none: secretType(slug: "nope") { slug }
          secretTags(pageSize: 100) { total items { ${TAG_FIELDS} } }
          found: secretTags(search: "pay") { total items { slug } }
          secretTag(slug: "payments") { ${TAG_FIELDS} }
          noTag: secretTag(slug: "nope") { slug }
      } }`,
      ownerTok,
    );
    expect(res.body.errors).toBeUndefined();
    const s = res.body.data.site;

    const types = await rest('/api/secret-types/?page_size=100');
    expect(types.count).toBeGreaterThan(1);
    expect(s.secretTypes).toEqual({ total: types.count, page: 1, pageSize: 100, items: types.items.map(typeOf) });
    const custom = await rest('/api/secret-types/?type=custom');
    expect(s.custom).toEqual({ total: custom.count, items: custom.items.map((i: any) => ({ slug: i.slug })) });
    expect(s.custom.items).toEqual([{ slug: 'webhook' }]);
    expect(s.secretType).toEqual(typeOf(await rest('/api/secret-types/webhook/')));
    expect(s.none).toBeNull();

    const tags = await rest('/api/tags/?page_size=100');
    expect(tags.count).toBe(2);
    expect(s.secretTags).toEqual({ total: tags.count, items: tags.items.map(tagOf) });
    const found = await rest('/api/tags/?search=pay');
    expect(s.found).toEqual({ total: found.count, items: found.items.map((i: any) => ({ slug: i.slug })) });
    expect(s.secretTag).toEqual(tagOf(await rest('/api/tags/payments/')));
    expect(s.noTag).toBeNull();
  });

  test('Site.secretHistory answers the REST history of the key, page by page, never values', async () => {
    const res = await gql(
      `{ site(slug: "gaps-site") {
          all: secretHistory(key: "hook") { total page pageSize items { action user at key app secretType changes } }
          second: secretHistory(key: "hook", page: 2, pageSize: 1) { total page pageSize items { action } }
      } }`,
      ownerTok,
    );
    expect(res.body.errors).toBeUndefined();
    const r = await rest('/api/secrets/hook/history/');
    const s = res.body.data.site;
    expect(r.total_count).toBe(2);
    expect(s.all).toEqual({
      total: 2,
      page: 1,
      pageSize: 10,
      items: r.results.map((e: any) => ({
        action: e.action,
        user: e.user,
        at: e.timestamp,
        key: e.key,
        app: e.app,
        secretType: e.secret_type,
        changes: e.changes,
      })),
    });
    const second = await rest('/api/secrets/hook/history/?limit=1&offset=1');
    expect(s.second).toEqual({ total: 2, page: 2, pageSize: 1, items: [{ action: second.results[0].action }] });
    expect(JSON.stringify(res.body)).not.toContain('never-in-graphql');
    const missing = await gql('{ site(slug: "gaps-site") { secretHistory(key: "nope") { total } } }', ownerTok);
    expect(codeOf(missing)).toBe('not_found');
    const bad = await gql('{ site(slug: "gaps-site") { secretHistory(key: "hook", page: 0) { total } } }', ownerTok);
    expect(codeOf(bad)).toBe('invalid');
  });

  test('without secrets:read each field is refused as REST refuses it', async () => {
    for (const path of [
      '/api/secret-types/',
      '/api/secret-types/webhook/',
      '/api/tags/',
      '/api/tags/payments/',
      '/api/secrets/hook/history/',
    ])
      expect((await t.call('GET', path, { host: HOST, token: viewerTok })).status).toBe(403);
    for (const field of [
      'secretTypes { total }',
      'secretType(slug: "webhook") { slug }',
      'secretTags { total }',
      'secretTag(slug: "payments") { slug }',
      'secretHistory(key: "hook") { total }',
    ]) {
      const res = await gql(`{ site(slug: "gaps-site") { id ${field} } }`, viewerTok);
      expect(codeOf(res)).toBe('permission_denied');
      expect(JSON.stringify(res.body.data ?? {})).not.toContain('webhook');
    }
  });

  test('on a platform host the site-bound fields say tenant_required', async () => {
    for (const field of [
      'secretTypes { total }',
      'secretType(slug: "webhook") { slug }',
      'secretTags { total }',
      'secretTag(slug: "mail") { slug }',
    ]) {
      const res = await gql(`{ site(slug: "gaps-site") { id ${field} } }`, ownerTok, 'localhost');
      expect(codeOf(res)).toBe('tenant_required');
    }
  });
});

describe('site configuration', () => {
  test('Query.siteConfig answers what GET /api/sites/config/ answers', async () => {
    const res = await gql(
      `{ siteConfig {
          site { uuid slug name environment schemaName }
          organization { uuid slug name }
          siteSettings primaryDomain
          domains { uuid slug domain isPrimary isActive }
      } }`,
      ownerTok,
    );
    expect(res.body.errors).toBeUndefined();
    const r = await rest('/api/sites/config/');
    expect(r.domains.length).toBeGreaterThan(0);
    expect(res.body.data.siteConfig).toEqual({
      site: { uuid: r.site.uuid, slug: r.site.slug, name: r.site.name, environment: r.site.environment, schemaName: r.site.schema_name },
      organization: r.organization,
      siteSettings: r.site_settings,
      primaryDomain: r.primary_domain,
      domains: r.domains.map((d: any) => ({
        uuid: d.uuid,
        slug: d.slug,
        domain: d.domain,
        isPrimary: d.is_primary,
        isActive: d.is_active,
      })),
    });
    expect(res.body.data.siteConfig.site.slug).toBe('gaps-site');
  });

  test('refused without view_site, and on a platform host', async () => {
    expect((await t.call('GET', '/api/sites/config/', { host: HOST, token: outsiderTok })).status).toBe(403);
    const denied = await gql('{ siteConfig { site { uuid } } }', outsiderTok);
    expect(codeOf(denied)).toBe('permission_denied');
    expect(denied.body.data).toBeNull();
    const anonymous = await t.call('POST', '/graphql', { host: HOST, body: { query: '{ siteConfig { site { uuid } } }' } });
    expect(anonymous.body.data).toBeNull();
    expect(codeOf(await gql('{ siteConfig { site { uuid } } }', ownerTok, 'localhost'))).toBe('tenant_required');
  });
});

describe('hierarchy', () => {
  const hierarchy = (args: string, token = ownerTok) =>
    gql(`{ datatable(app: "shop", name: "categories") { name hierarchy(${args}) } }`, token);

  test('DataTable.hierarchy answers the data of the REST list with format=tree|graph', async () => {
    const cases: Array<[string, string]> = [
      ['format: "tree"', 'format=tree'],
      ['format: "tree", depth: 1', 'format=tree&depth=1'],
      ['format: "graph"', 'format=graph'],
      ['format: "graph", include: "ancestors", filter: {name: "a1"}', 'format=graph&include=ancestors&name=a1'],
      ['format: "tree", filter: {id: 2}, page: 1, pageSize: 5', 'format=tree&id=2&page=1&page_size=5'],
    ];
    for (const [args, query] of cases) {
      const res = await hierarchy(args);
      expect(res.body.errors).toBeUndefined();
      const r = await rest(`/api/apps/shop/datatables/categories/data/?${query}`);
      expect(res.body.data.datatable.hierarchy).toEqual(r.data);
    }
    // The tree really nests: root → a → a1.
    const tree = (await hierarchy('format: "tree"')).body.data.datatable.hierarchy;
    const root = tree.find((n: any) => n.name === 'root');
    expect(root.children.map((c: any) => c.name).sort()).toEqual(['a', 'b']);
    expect(root.children.find((c: any) => c.name === 'a').children.map((c: any) => c.name)).toEqual(['a1']);
  });

  test('bad arguments answer the REST errors', async () => {
    for (const args of [
      'format: "tree", depth: 11',
      'format: "graph", include: "x"',
      'format: "cloud"',
      'format: "tree", include: "ancestors"',
    ]) {
      const res = await hierarchy(args);
      expect(codeOf(res)).toBe('invalid');
    }
  });

  test('without data:read it is refused as REST refuses it', async () => {
    const restRes = await t.call('GET', '/api/apps/shop/datatables/categories/data/?format=tree', { host: HOST, token: viewerTok });
    expect(restRes.status).toBe(403);
    // Through the entity field too (Query.datatable itself needs data:read, so the walk stops there).
    const walk = await hierarchy('format: "tree"', viewerTok);
    expect(codeOf(walk)).toBe('permission_denied');
    expect(JSON.stringify(walk.body.data ?? {})).not.toContain('root');
  });
});

describe('one domain, one bucket, one object', () => {
  const ONE = `{ site(slug: "gaps-site") {
      domain(slug: "www-gaps-graph-test") { id slug domain isPrimary isActive }
      noDomain: domain(slug: "nope") { id }
      apps(search: "shop") { items { slug
        bucket(slug: "media") { id name slug description provider visibility fileSizeLimit allowedMimeTypes objectCount totalSize createdAt
          object(key: "docs/hello.txt") { id uuid filename filePath size mimetype metadata visibility url createdAt updatedAt }
          none: object(key: "docs/nope.txt") { id }
        }
        noBucket: bucket(slug: "nope") { id }
      } }
  } }`;

  test('Site.domain, App.bucket and Bucket.object answer what REST answers', async () => {
    const res = await gql(ONE, ownerTok);
    expect(res.body.errors).toBeUndefined();
    const s = res.body.data.site;
    const domains = await rest('/api/sites/gaps-site/domains/', ownerTok, 'localhost');
    const www = domains.results.find((d: any) => d.domain === 'www.gaps.graph.test');
    expect(www.slug).toBe('www-gaps-graph-test');
    const d = await rest(`/api/sites/gaps-site/domains/${www.slug}/`, ownerTok, 'localhost');
    expect(s.domain).toEqual({ id: d.uuid, slug: d.slug, domain: d.domain, isPrimary: d.is_primary, isActive: d.is_active });
    expect(s.noDomain).toBeNull();

    const app = s.apps.items[0];
    const b = (await rest('/api/apps/shop/storage/buckets/media/')).data;
    expect(app.bucket).toMatchObject({
      id: String(b.id),
      name: b.name,
      slug: b.slug,
      description: b.description,
      provider: b.provider,
      visibility: b.visibility,
      fileSizeLimit: b.file_size_limit,
      allowedMimeTypes: b.allowed_mime_types,
      objectCount: 1,
      totalSize: 5,
      createdAt: new Date(b.created_at).toISOString(),
    });
    expect([b.object_count, b.total_size]).toEqual([1, 5]);
    const o = (await rest('/api/apps/shop/storage/buckets/media/objects/docs/hello.txt?metadata=true')).data;
    expect(app.bucket.object).toEqual({
      id: String(o.id),
      uuid: o.uuid,
      filename: o.filename,
      filePath: o.file_path,
      size: o.size,
      mimetype: o.mimetype,
      metadata: o.metadata,
      visibility: o.visibility,
      url: o.file_url,
      createdAt: new Date(o.created_at).toISOString(),
      updatedAt: new Date(o.updated_at).toISOString(),
    });
    expect(app.bucket.none).toBeNull();
    expect(app.noBucket).toBeNull();
  });

  test('refused as REST refuses: the domain to a non-member, the bucket and object without storage:read', async () => {
    expect(
      (await t.call('GET', '/api/sites/gaps-site/domains/www-gaps-graph-test/', { host: 'localhost', token: outsiderTok })).status,
    ).toBe(404);
    // The outsider cannot see the site at all: Query.site is null, so ask through the site's id.
    const outsider = await gql('{ site(slug: "gaps-site") { domain(slug: "www-gaps-graph-test") { id } } }', outsiderTok, 'localhost');
    expect(JSON.stringify(outsider.body)).not.toContain('www-gaps');

    const restBucket = await t.call('GET', '/api/apps/shop/storage/buckets/media/', { host: HOST, token: viewerTok });
    expect(restBucket.status).toBe(403);
    const bucket = await gql('{ app(slug: "shop") { bucket(slug: "media") { id } } }', viewerTok);
    expect(codeOf(bucket)).toBe('permission_denied');
    expect(bucket.body.data.app.bucket).toBeNull();
    const restObject = await t.call('GET', '/api/apps/shop/storage/buckets/media/objects/docs/hello.txt?metadata=true', {
      host: HOST,
      token: viewerTok,
    });
    expect(restObject.status).toBe(403);
    // Bucket.object itself: the viewer reads the public bucket, not its private object.
    const restHidden = await t.call('GET', '/api/apps/shop/storage/buckets/open/objects/hidden.txt?metadata=true', {
      host: HOST,
      token: viewerTok,
    });
    expect(restHidden.status).toBe(403);
    const open = await gql('{ app(slug: "shop") { bucket(slug: "open") { slug object(key: "hidden.txt") { uuid } } } }', viewerTok);
    expect(open.body.data.app.bucket).toEqual({ slug: 'open', object: null });
    expect(codeOf(open)).toBe('permission_denied');
    const mine = await gql('{ app(slug: "shop") { bucket(slug: "open") { object(key: "hidden.txt") { filePath } } } }', ownerTok);
    expect(mine.body.data.app.bucket.object).toEqual({ filePath: 'hidden.txt' });
  });
});
