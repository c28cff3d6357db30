// Record reads through REST and GraphQL (docs/data-service.md "Queries"): every filter case
// of data-query-cases.ts on both providers, envelopes of the three pagination forms, sorting,
// search with rank and excerpt, soft delete, errors naming the parameter, permissions,
// tenant isolation, and GraphQL answering as REST does.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { CASES, resource, ROWS } from '../integration/data-query-cases.js';

const HOST = 'shop.query.test';
const OTHER = 'other.query.test';
let t: TestApp;
let token: string, readerTok: string, strangerTok: string, outsiderTok: string;

const get = (url: string, tok = token, host = HOST) => t.call('GET', url, { token: tok, host });
const gql = (query: string, variables: Record<string, unknown> = {}, tok = token, host = HOST) =>
  t.call('POST', '/graphql', { body: { query, variables }, token: tok, host });
const sorted = (ids: unknown[]) => [...ids].sort((a, b) => Number(a) - Number(b));
const qs = (q: Record<string, string>) => new URLSearchParams(q).toString();

async function createSchema(resources: unknown[], host = HOST, tok = token) {
  const res = await t.call('POST', '/api/apps/shop/datatables/create_schema/', { token: tok, host, body: { resources } });
  if (res.status >= 300) throw new Error(`create_schema: ${res.status} ${res.text}`);
}

async function insert(table: string, rows: unknown[], host = HOST, tok = token) {
  const res = await t.call('POST', `/api/apps/shop/datatables/${table}/data/`, { token: tok, host, body: rows });
  if (res.status !== 201) throw new Error(`insert ${table}: ${res.status} ${res.text}`);
}

beforeAll(async () => {
  t = await startTestApp();
  // One at a time: four concurrent user transactions can starve Prisma's pool on a loaded machine.
  const [owner, reader, stranger, outsider] = [await t.createUser(), await t.createUser(), await t.createUser(), await t.createUser()];
  [token, readerTok, strangerTok, outsiderTok] = [owner, reader, stranger, outsider].map((u) => t.tokenFor(u));
  const org = await insertOrg(t.platform, 'query-org', owner.id);
  const site = await insertSite(t.platform, org.id, 'query-shop', HOST);
  await insertApp(t.platform, site.id, 'shop');
  await t.platform.pool.query(
    `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{view_site,data:read}'), ($1, $3, 'member', '{view_site}')`,
    [org.id, reader.id, stranger.id],
  );
  const otherOrg = await insertOrg(t.platform, 'query-other', outsider.id);
  const otherSite = await insertSite(t.platform, otherOrg.id, 'query-other', OTHER);
  await insertApp(t.platform, otherSite.id, 'shop');

  await createSchema([
    resource,
    { ...resource, name: 'notes', provider: 'jsonb' },
    {
      name: 'plain',
      schema: {
        fields: [
          { name: 'n', type: 'integer', constraints: { required: true } },
          { name: 'label', type: 'string' },
        ],
      },
    },
  ]);
  await insert('posts', ROWS);
  await insert('notes', ROWS);
  await insert(
    'plain',
    Array.from({ length: 1100 }, (_, i) => ({ n: i, label: `row ${i}` })),
  );
  await createSchema([{ name: 'posts', schema: { fields: [{ name: 'title', type: 'string' }] } }], OTHER, outsiderTok);
  await insert('posts', [{ title: 'other site' }], OTHER, outsiderTok);
}, 60_000);
afterAll(() => t?.close());

describe.each(['posts', 'notes'])('filters through REST on %s', (table) => {
  it.each(CASES)('%p', async (query, expected) => {
    const res = await get(`/api/apps/shop/datatables/${table}/data/?${qs({ include_deleted: 'true', ...query })}`);
    expect(res.status).toBe(200);
    expect(sorted(res.body.data.map((r: { id: number }) => r.id))).toEqual(expected);
    expect(res.body.total).toBe(expected.length);
  });
});

describe('list envelopes and pagination', () => {
  const url = (q: Record<string, string>) => `/api/apps/shop/datatables/plain/data/?${qs(q)}`;

  it('page/page_size: default 100, maximum 1000, exact total', async () => {
    const res = await get(url({ ordering: 'n' }));
    expect(Object.keys(res.body).sort()).toEqual(['data', 'page', 'page_size', 'total']);
    expect(res.body).toMatchObject({ total: 1100, page: 1, page_size: 100 });
    expect(res.body.data).toHaveLength(100);
    expect(res.body.data[0]).toEqual({ id: expect.any(String), n: 0, label: 'row 0' });
    const big = await get(url({ page_size: '5000' }));
    expect(big.body).toMatchObject({ page_size: 1000, total: 1100 });
    expect(big.body.data).toHaveLength(1000);
    const p2 = await get(url({ ordering: 'n', page: '2', page_size: '1000' }));
    expect(p2.body.data.map((r: { n: number }) => r.n)).toEqual(Array.from({ length: 100 }, (_, i) => 1000 + i));
    expect((await get(url({ page: '50' }))).body).toEqual({ data: [], total: 1100, page: 50, page_size: 100 });
  });

  it('limit/offset answer like page/page_size', async () => {
    const res = await get(url({ ordering: '-n', limit: '10', offset: '20' }));
    expect(res.body).toMatchObject({ total: 1100, page: 3, page_size: 10 });
    expect(res.body.data.map((r: { n: number }) => r.n)).toEqual(Array.from({ length: 10 }, (_, i) => 1079 - i));
  });

  it('_start/_end answer {data, total, meta}', async () => {
    const res = await get(url({ _sort: 'n', _start: '1095', _end: '1105' }));
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta', 'total']);
    expect(res.body.meta).toEqual({ offset: 1095, limit: 10, count: 5, has_more: false });
    expect(res.body.data.map((r: { n: number }) => r.n)).toEqual([1095, 1096, 1097, 1098, 1099]);
    expect((await get(url({ _start: '0', _end: '3' }))).body.meta).toEqual({ offset: 0, limit: 3, count: 3, has_more: true });
    expect((await get(url({ _start: '0', _end: '5000' }))).body.meta.limit).toBe(1000);
    expect((await get(url({ _start: '0', _end: '0' }))).body).toEqual({
      data: [],
      total: 1100,
      meta: { offset: 0, limit: 0, count: 0, has_more: true },
    });
  });

  it.each([
    [{ page: '0' }, 'page'],
    [{ page: '-1' }, 'page'],
    [{ page: 'x' }, 'page'],
    [{ page_size: '0' }, 'page_size'],
    [{ limit: '1.5' }, 'limit'],
    [{ offset: '-3' }, 'offset'],
    [{ _start: '5', _end: '2' }, '_end'],
    [{ _start: 'a' }, '_start'],
  ])('bad paging %p → 400 naming %s', async (q, param) => {
    const res = await get(url(q as Record<string, string>));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String), details: { [param]: [expect.any(String)] } });
  });
});

describe('sorting', () => {
  const ids = async (q: Record<string, string>, table = 'posts') =>
    (await get(`/api/apps/shop/datatables/${table}/data/?${qs({ include_deleted: 'true', ...q })}`)).body.data.map(
      (r: { id: number }) => r.id,
    );
  it.each(['posts', 'notes'])('ordering and _sort/_order, several fields, on %s', async (table) => {
    expect(await ids({ ordering: '-views' }, table)).toEqual([4, 6, 3, 2, 1, 5]);
    expect(await ids({ ordering: 'published,-views' }, table)).toEqual([2, 6, 3, 1, 4, 5]);
    expect(await ids({ _sort: 'published,views', _order: 'asc,desc' }, table)).toEqual([2, 6, 3, 1, 4, 5]);
    expect(await ids({ _sort: 'views', _order: 'desc' }, table)).toEqual([4, 6, 3, 2, 1, 5]);
  });
  it('unknown sort field or direction → 400 naming the parameter', async () => {
    expect((await get('/api/apps/shop/datatables/posts/data/?ordering=nope')).body.details).toEqual({
      ordering: [expect.stringContaining('nope')],
    });
    expect((await get('/api/apps/shop/datatables/posts/data/?_sort=views&_order=up')).body.details).toEqual({
      _order: [expect.any(String)],
    });
  });
});

describe('full-text search', () => {
  it.each(['posts', 'notes'])('words, stemming, stop words, phrases, exclusion, or; rank and excerpt (%s)', async (table) => {
    const search = async (s: string) => (await get(`/api/apps/shop/datatables/${table}/data/?${qs({ search: s })}`)).body;
    const ids = async (s: string) => sorted((await search(s)).data.map((r: { id: number }) => r.id));
    expect(await ids('cat')).toEqual([1, 2, 6]);
    expect(await ids('running')).toEqual([1, 2]);
    expect(await ids('the cats')).toEqual([1, 2, 6]);
    expect(await ids('"brown fox"')).toEqual([3]);
    expect(await ids('cats -dogs')).toEqual([1]);
    expect(await ids('fox or hello')).toEqual([1, 2, 3, 6]);
    const body = await search('hello cats');
    expect(body.data[0]).toMatchObject({ rank: expect.any(Number), excerpt: expect.stringContaining('<mark>') });
    const ranks = body.data.map((r: { rank: number }) => r.rank);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
  });
  it('a table without search fields answers 400', async () => {
    const res = await get('/api/apps/shop/datatables/plain/data/?search=x');
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual({ search: [expect.any(String)] });
  });
});

describe('errors, soft delete, single records', () => {
  it.each([
    ['nope=1', 'nope'],
    ['title__foo=1', 'title__foo'],
    ['views=abc', 'views'],
    ['views__contains=1', 'views__contains'],
    ['day=2026-13-01', 'day'],
    ['author.name=x', 'author.name'],
    ['populate=author', 'populate'],
    ['_aggregate=nope(views)', '_aggregate'],
    ['filter=%7Bbad', 'filter'],
    ['filter=%5B1%5D', 'filter'],
    ['filter=%7B%22nope%22%3A1%7D', 'nope'],
  ])('%s → 400 naming %s', async (q, param) => {
    const res = await get(`/api/apps/shop/datatables/posts/data/?${q}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String), details: { [param]: [expect.any(String)] } });
  });

  it('soft-deleted rows are hidden unless include_deleted / only_deleted', async () => {
    const ids = async (q: string) =>
      sorted((await get(`/api/apps/shop/datatables/posts/data/?${q}`)).body.data.map((r: { id: number }) => r.id));
    expect(await ids('')).toEqual([1, 2, 3, 4, 6]);
    expect(await ids('include_deleted=true')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ids('only_deleted=true')).toEqual([5]);
  });

  it.each(['posts', 'notes'])('GET one record of %s: 200 {status, data}, 404 {error, detail}', async (table) => {
    const one = await get(`/api/apps/shop/datatables/${table}/data/1/`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      status: 'success',
      data: expect.objectContaining({ id: 1, title: 'Hello World', day: '2026-01-01', meta: { a: 1, b: { c: 'x' } } }),
    });
    expect(one.body.data).not.toHaveProperty('search_vector');
    for (const id of ['99', 'abc', '5']) {
      const res = await get(`/api/apps/shop/datatables/${table}/data/${id}/`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String), detail: expect.any(String) });
    }
    expect((await get(`/api/apps/shop/datatables/${table}/data/5/?include_deleted=true`)).status).toBe(200);
  });

  it('permissions: anonymous 401, no data:read 403, data:read 200; unknown table or app 404', async () => {
    expect((await t.call('GET', '/api/apps/shop/datatables/posts/data/', { host: HOST })).status).toBe(401);
    expect((await get('/api/apps/shop/datatables/posts/data/', strangerTok)).status).toBe(403);
    expect((await get('/api/apps/shop/datatables/posts/data/1/', strangerTok)).status).toBe(403);
    expect((await get('/api/apps/shop/datatables/posts/data/', readerTok)).status).toBe(200);
    expect((await get('/api/apps/shop/datatables/nope/data/')).status).toBe(404);
    expect((await get('/api/apps/nope/datatables/posts/data/')).status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it('the same app and table names on another site answer that site only', async () => {
    const mine = await get('/api/apps/shop/datatables/posts/data/');
    expect(mine.body.data.map((r: { title: string }) => r.title)).not.toContain('other site');
    const theirs = await get('/api/apps/shop/datatables/posts/data/', outsiderTok, OTHER);
    expect(theirs.body.data.map((r: { title: string }) => r.title)).toEqual(['other site']);
    for (const url of [
      '/api/apps/shop/datatables/posts/data/',
      '/api/apps/shop/datatables/notes/data/',
      '/api/apps/shop/datatables/notes/data/1/',
    ]) {
      expect([403, 404]).toContain((await get(url, outsiderTok, HOST)).status);
      expect([403, 404]).toContain((await get(url, token, OTHER)).status);
    }
    expect((await get('/api/apps/shop/datatables/notes/data/', outsiderTok, OTHER)).status).toBe(404);
    const g = await gql('{ records(app: "shop", table: "notes") { total } }', {}, outsiderTok, OTHER);
    expect(g.body.errors?.[0]?.extensions?.code).toBe('not_found');
  });
});

describe('GraphQL answers as REST does', () => {
  const RECORDS = `query($table: String!, $filter: JSON, $sort: [String!], $search: String, $page: Int, $pageSize: Int, $inc: Boolean, $only: Boolean) {
    records(app: "shop", table: $table, filter: $filter, sort: $sort, search: $search, page: $page, pageSize: $pageSize, includeDeleted: $inc, onlyDeleted: $only) {
      total page pageSize items { id table data rank excerpt } } }`;
  const pairs: Array<[Record<string, unknown>, string]> = [
    [{ table: 'posts' }, ''],
    [
      { table: 'notes', filter: { views__gte: 10 }, sort: ['-views'] },
      'filter=' + encodeURIComponent('{"views__gte":10}') + '&ordering=-views',
    ],
    [{ table: 'posts', filter: { title__icontains: 'hello', meta__a__gt: 1 } }, 'title__icontains=hello&meta__a__gt=1'],
    [{ table: 'posts', search: 'cats', inc: true }, 'search=cats&include_deleted=true'],
    [{ table: 'notes', only: true }, 'only_deleted=true'],
    [{ table: 'plain', sort: ['-n'], page: 3, pageSize: 7 }, 'ordering=-n&page=3&page_size=7'],
    [{ table: 'posts', filter: { meta__contains: { b: { c: 'y' } } } }, 'meta__contains=' + encodeURIComponent('{"b":{"c":"y"}}')],
  ];
  it.each(pairs)('%p', async (vars, rest) => {
    const g = await gql(RECORDS, vars);
    expect(g.body.errors).toBeUndefined();
    const r = await get(`/api/apps/shop/datatables/${vars.table}/data/?${rest}`);
    const conn = g.body.data.records;
    expect({ total: conn.total, page: conn.page, pageSize: conn.pageSize }).toEqual({
      total: r.body.total,
      page: r.body.page,
      pageSize: r.body.page_size,
    });
    expect(
      conn.items.map((i: { data: unknown; rank: unknown; excerpt: unknown }) => ({
        ...(i.data as object),
        ...(i.rank != null ? { rank: i.rank, excerpt: i.excerpt } : {}),
      })),
    ).toEqual(r.body.data);
    expect(conn.items.every((i: { table: string }) => i.table === vars.table)).toBe(true);
  });
  it('record(id) as GET one; null when missing; errors as REST', async () => {
    const g = await gql('{ record(app: "shop", table: "posts", id: "2") { id table data } }');
    expect(g.body.data.record).toEqual({ id: '2', table: 'posts', data: (await get('/api/apps/shop/datatables/posts/data/2/')).body.data });
    expect((await gql('{ record(app: "shop", table: "posts", id: "5") { id } }')).body.data.record).toBeNull();
    expect((await gql('{ record(app: "shop", table: "posts", id: "5", includeDeleted: true) { id } }')).body.data.record).toEqual({
      id: '5',
    });
    const bad = await gql('{ records(app: "shop", table: "posts", filter: {nope: 1}) { total } }');
    expect(bad.body.errors[0].extensions.code).toBe('invalid');
  });
});
