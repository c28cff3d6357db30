// Datatable relationships (issue 12): the relationship model (forward, reverse, `{table}_by_{field}`,
// many-to-many through a junction), populate on lists and single records with per-relationship
// options and a constant number of queries, related filters and related sorting.
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'shop.rel2.test';
const OTHER = 'other.rel2.test';
let t: TestApp;
let token: string;
let otherTok: string;

const DATA = (name: string) => `/api/apps/web/datatables/${name}/data/`;
const get = (url: string, tok = token, host = HOST) => t.call('GET', url, { token: tok, host });
const post = (name: string, body: unknown) => t.call('POST', DATA(name), { token, host: HOST, body });
const f = (name: string, type: string, extra: Record<string, unknown> = {}) => ({ name, type, ...extra });
const fk = (field: string, resource: string) => ({
  fields: field,
  reference: { resource, fields: 'id' },
  'x-actions': { onDelete: 'CASCADE' },
});

/** The access check and the catalogue read, whose count does not depend on the page (and the former is cached). */
const isPlatformQuery = (q: string) => /\bdatatables\b/.test(q) || /FROM sites s/.test(q);

export const RESOURCES = [
  { name: 'countries', schema: { fields: [f('id', 'integer'), f('name', 'string')], primaryKey: 'id' } },
  {
    name: 'authors',
    schema: {
      fields: [f('id', 'integer'), f('name', 'string'), f('country', 'integer')],
      primaryKey: 'id',
      foreignKeys: [fk('country', 'countries')],
    },
  },
  {
    name: 'posts',
    schema: {
      fields: [f('id', 'integer'), f('title', 'string'), f('views', 'integer'), f('author', 'integer'), f('editor', 'integer')],
      primaryKey: 'id',
      foreignKeys: [fk('author', 'authors'), fk('editor', 'authors')],
    },
  },
  {
    name: 'comments',
    schema: {
      fields: [f('id', 'integer'), f('post', 'integer'), f('user', 'integer'), f('body', 'string'), f('is_deleted', 'boolean')],
      primaryKey: 'id',
      foreignKeys: [fk('post', 'posts'), fk('user', 'authors')],
    },
  },
  { name: 'tags', schema: { fields: [f('id', 'integer'), f('name', 'string')], primaryKey: 'id' } },
  {
    name: 'post_tags',
    schema: {
      fields: [f('id', 'integer'), f('post', 'integer'), f('tag', 'integer'), f('created_at', 'datetime')],
      primaryKey: 'id',
      foreignKeys: [fk('post', 'posts'), fk('tag', 'tags')],
    },
  },
];

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createUser();
  const other = await t.createUser();
  token = t.tokenFor(owner);
  otherTok = t.tokenFor(other);
  const site = await insertSite(t.platform, (await insertOrg(t.platform, 'rel2', owner.id)).id, 'rel2', HOST);
  await insertApp(t.platform, site.id, 'web');
  const site2 = await insertSite(t.platform, (await insertOrg(t.platform, 'rel2-other', other.id)).id, 'rel2-other', OTHER);
  await insertApp(t.platform, site2.id, 'web');
  await createTables(t, { host: HOST, token, app: 'web' }, RESOURCES);
  await createTables(t, { host: OTHER, token: otherTok, app: 'web' }, RESOURCES);
  const bulk = async (name: string, rows: unknown[]) => {
    const res = await post(name, rows);
    if (res.status !== 201) throw new Error(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  await bulk('countries', [
    { id: 1, name: 'France' },
    { id: 2, name: 'Japan' },
  ]);
  await bulk('authors', [
    { id: 1, name: 'Ann', country: 1 },
    { id: 2, name: 'Bob', country: 2 },
    { id: 3, name: 'Cy', country: null },
  ]);
  const posts = [];
  for (let i = 1; i <= 120; i++) posts.push({ id: i, title: `p${i}`, views: i, author: i % 4 === 0 ? null : (i % 3) + 1, editor: 1 });
  await bulk('posts', posts);
  const comments = [];
  for (let i = 1; i <= 240; i++) comments.push({ id: i, post: ((i - 1) % 120) + 1, user: (i % 3) + 1, body: `c${i}`, is_deleted: i === 2 });
  await bulk('comments', comments);
  await bulk('tags', [
    { id: 1, name: 'red' },
    { id: 2, name: 'blue' },
  ]);
  await bulk('post_tags', [
    { id: 1, post: 1, tag: 1 },
    { id: 2, post: 1, tag: 2 },
    { id: 3, post: 2, tag: 2 },
  ]);
  // The other site has a post 1 by an author named Ann too: never reachable from HOST.
  await t.call('POST', DATA('authors'), { token: otherTok, host: OTHER, body: { id: 1, name: 'Zed' } });
  await t.call('POST', DATA('posts'), { token: otherTok, host: OTHER, body: { id: 1, title: 'other', author: 1 } });
}, 120_000);
afterAll(() => t.close());

describe('populate', () => {
  test('forward replaces the id, reverse and many-to-many give arrays, on lists and one record', async () => {
    const res = await get(DATA('posts') + '?ordering=id&page_size=4&populate=author,comments,tags,editor');
    expect(res.status).toBe(200);
    const [p1, , , p4] = res.body.data;
    expect(p1.author).toEqual({ id: 2, name: 'Bob', country: 2 });
    expect(p1.editor).toEqual({ id: 1, name: 'Ann', country: 1 });
    expect(p1.comments.map((c: any) => c.id)).toEqual([1, 121]);
    expect(p1.tags.map((x: any) => x.name).sort()).toEqual(['blue', 'red']);
    expect(p4.author).toBeNull();
    expect(res.body.data[1].comments.map((c: any) => c.id)).toEqual([122]); // comment 2 is soft-deleted
    const one = await get(DATA('posts') + '1/?populate=author.country,comments.user');
    expect(one.status).toBe(200);
    expect(one.body.data.author.country).toEqual({ id: 2, name: 'Japan' });
    expect(one.body.data.comments[0].user).toEqual({ id: 2, name: 'Bob', country: 2 });
  });

  test('reverse names: the referencing table, or {table}_by_{field} for two references; * loads all', async () => {
    const res = await get(DATA('authors') + '1/?populate=*&posts_by_author_limit=2&posts_by_author_sort=views&posts_by_author_order=desc');
    expect(res.status).toBe(200);
    const a = res.body.data;
    expect(a.country).toEqual({ id: 1, name: 'France' });
    expect(a.posts_by_author.map((p: any) => p.views)).toEqual([117, 114]);
    expect(a.posts_by_editor).toHaveLength(100); // the default per-parent limit
    expect(Array.isArray(a.comments)).toBe(true);
    const tag = await get(DATA('tags') + '2/?populate=posts&posts_sort=-id');
    expect(tag.body.data.posts.map((p: any) => p.id)).toEqual([2, 1]);
    const offset = await get(DATA('posts') + '1/?populate=comments&comments_offset=1&comments_limit=5');
    expect(offset.body.data.comments.map((c: any) => c.id)).toEqual([121]);
  });

  test('unknown names, a fourth level and bad options answer 400 naming them', async () => {
    const cases: Array<[string, string]> = [
      ['populate=nope', 'nope'],
      ['populate=author.nope', 'nope'],
      ['populate=comments.user.country.authors', 'levels'],
      ['populate=comments&comments_limit=x', 'comments_limit'],
      ['populate=comments&comments_sort=nope', 'nope'],
      ['populate=author..country', 'Empty'],
    ];
    for (const [q, needle] of cases) {
      const res = await get(DATA('posts') + '?' + q);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(needle);
    }
  });

  test('a page of 100 with two levels costs a constant number of queries', async () => {
    const count = async (size: number) => {
      const url = DATA('posts') + `?page_size=${size}&populate=author.country,comments.user,tags`;
      await get(url); // warm the grant and model caches
      const pool = t.platform.pool;
      const original = pool.query.bind(pool);
      const texts: string[] = [];
      (pool as any).query = (...args: any[]) => {
        const q = args[0];
        texts.push(typeof q === 'string' ? q : q.text);
        return (original as any)(...args);
      };
      try {
        const res = await get(url);
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(size);
      } finally {
        (pool as any).query = original;
      }
      return texts;
    };
    const big = await count(100);
    const small = await count(10);
    const recordQueries = big.filter((q) => !isPlatformQuery(q));
    // 1 page + level 1 (author, comments, tags) + level 2 (author.country, comments.user)
    expect(recordQueries.length).toBeLessThanOrEqual(1 + 3 + 2);
    expect(recordQueries.length).toBe(small.filter((q) => !isPlatformQuery(q)).length);
    expect(big.length - recordQueries.length).toBeLessThanOrEqual(2); // the access read (often cached) and the catalogue
  });
});

describe('related filters and sorting', () => {
  test('forward with operators and several hops; null keys never match', async () => {
    const ann = await get(DATA('posts') + '?author.name=Ann&page_size=1000');
    expect(ann.status).toBe(200);
    expect(ann.body.data.every((p: any) => p.author === 1)).toBe(true);
    expect(ann.body.total).toBe(30);
    const ne = await get(DATA('posts') + '?author.name__ne=Ann&page_size=1000');
    expect(ne.body.data.every((p: any) => p.author !== null && p.author !== 1)).toBe(true);
    const hop2 = await get(DATA('posts') + '?author.country.name__in=Japan&page_size=1000');
    expect(hop2.body.data.every((p: any) => p.author === 2)).toBe(true);
    expect(hop2.body.data[0]).not.toHaveProperty('country');
    const both = await get(DATA('posts') + '?author.name__startswith=B&author.country.name=Japan&views__lte=10');
    expect(both.body.data.map((p: any) => p.id)).toEqual([1, 7, 10].filter((i) => i % 4 !== 0 && (i % 3) + 1 === 2));
    const none = await get(DATA('posts') + '?author.country.name=France&author.name=Bob');
    expect(none.body.total).toBe(0);
  });

  test('reverse and many-to-many: parents with a matching child, no duplicates; same path shares one row', async () => {
    const res = await get(DATA('posts') + '?comments.body__in=c1,c121,c3&ordering=id');
    expect(res.body.data.map((p: any) => p.id)).toEqual([1, 3]);
    const same = await get(DATA('posts') + '?comments.body=c1&comments.user=3');
    expect(same.body.total).toBe(0); // comment c1 has user 2: one child must satisfy both
    const tags = await get(DATA('posts') + '?tags.name=blue&ordering=id');
    expect(tags.body.data.map((p: any) => p.id)).toEqual([1, 2]);
    const deleted = await get(DATA('posts') + '?comments.body=c2');
    expect(deleted.body.total).toBe(0); // soft-deleted children do not match
    const viaFilterJson = await get(DATA('posts') + '?filter=' + encodeURIComponent(JSON.stringify({ 'tags.name__icontains': 'RED' })));
    expect(viaFilterJson.body.data.map((p: any) => p.id)).toEqual([1]);
  });

  test('sorting by a forward related field keeps null keys, last', async () => {
    const res = await get(DATA('posts') + '?_sort=author.name,id&_order=desc,asc&page_size=1000');
    expect(res.status).toBe(200);
    const names = res.body.data.map((p: any) => p.author);
    expect(names.slice(0, 30).every((a: number) => a === 3)).toBe(true);
    expect(names.slice(-30).every((a: unknown) => a === null)).toBe(true);
    const asc = await get(DATA('posts') + '?ordering=author.country.name,id&page_size=1000');
    expect(asc.body.data[0].author).toBe(1);
    expect(asc.body.data.at(-1).author).toBeNull();
    expect((await get(DATA('posts') + '?ordering=comments.body')).status).toBe(400);
  });

  test('errors: unknown relationship or field, empty segments, too many paths or hops', async () => {
    const cases = [
      'nope.name=1',
      'author.nope=1',
      'author..name=1',
      'author.name__bogus=1',
      'author.country.authors.posts_by_author.id=1',
      'author.name=a&editor.name=b&comments.body=c&tags.name=d&post_tags.id=1&author.country.name=x',
    ];
    for (const q of cases) {
      const res = await get(DATA('posts') + '?' + q);
      expect(res.status).toBe(400);
    }
  });

  test("another site's tables are never reached", async () => {
    const res = await get(DATA('posts') + '?author.name=Zed');
    expect(res.body.total).toBe(0);
    const other = await get(DATA('posts') + '?author.name=Zed&populate=author', otherTok, OTHER);
    expect(other.body.data).toEqual([expect.objectContaining({ id: 1, author: { id: 1, name: 'Zed', country: null } })]);
    expect((await get(DATA('posts') + '?populate=author', otherTok, HOST)).status).toBe(403);
  });
});

describe('aggregation', () => {
  test('without grouping: {data: [], aggregates}; filters apply first', async () => {
    const res = await get(DATA('posts') + '?_aggregate=count(*),sum(views),avg(views),min(views),max(views),count(author)&views__lte=10');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      aggregates: { count: 10, sum_views: 55, avg_views: 5.5, min_views: 1, max_views: 10, count_author: 8 },
    });
    const more = await get(
      DATA('posts') + '?_aggregate=stddev(views),variance(views),array_agg(id),string_agg(title),json_agg(id)&id__in=1,2',
    );
    expect(more.body.aggregates).toMatchObject({
      stddev_views: expect.closeTo(0.7071, 3),
      variance_views: 0.5,
      string_agg_title: expect.any(String),
    });
    expect([...more.body.aggregates.array_agg_id].sort()).toEqual([1, 2]);
    expect([...more.body.aggregates.json_agg_id].sort()).toEqual([1, 2]);
  });

  test('grouping with having: {data: [{group, aggregates}], total}', async () => {
    const res = await get(DATA('posts') + '?_aggregate=count(*),sum(views)&_group_by=author&_having=count__gt=29');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(4);
    expect(res.body.data[0]).toEqual({ author: 1, count: 30, sum_views: expect.any(Number) });
    expect(res.body.data.at(-1).author).toBeNull();
    const sum = await get(DATA('posts') + '?_aggregate=sum(views)&_group_by=author,editor&_having=sum_views__lt=1830');
    expect(sum.body.data).toEqual([1, 2, 3].map((author) => ({ author, editor: 1, sum_views: 1800 })));
    const paged = await get(DATA('posts') + '?_aggregate=count(*)&_group_by=author&page_size=2&page=2');
    expect(paged.body).toEqual({ data: [expect.objectContaining({ author: 3 }), expect.objectContaining({ author: null })], total: 4 });
  });

  test('unknown fields and functions, bad having: 400 naming them', async () => {
    const cases: Array<[string, string]> = [
      ['_aggregate=nope(views)', 'nope'],
      ['_aggregate=sum(nope)', 'nope'],
      ['_aggregate=sum(title)', 'title'],
      ['_aggregate=sum(*)', '*'],
      ['_aggregate=count(*);drop', '_aggregate'],
      ['_aggregate=count(*)&_group_by=nope', 'nope'],
      ['_aggregate=count(*)&_group_by=author&_having=sum_views__gt=1', 'sum_views'],
      ['_aggregate=count(*)&_group_by=author&_having=count__gt=x', 'x'],
      ['_aggregate=count(*)&_group_by=author&_having=count__like=1', '_having'],
      ['_aggregate=count(*)&author.name=Ann', 'author.name'],
    ];
    for (const [q, needle] of cases) {
      const res = await get(DATA('posts') + '?' + q);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain(needle);
    }
  });
});

describe('GraphQL', () => {
  const gql = (query: string, variables: Record<string, unknown> = {}, tok = token) =>
    t.call('POST', '/graphql', { host: HOST, token: tok, body: { query, variables } });
  const PAGE = `query ($n: Int!) { records(app: "web", table: "posts", pageSize: $n, sort: ["id"]) { items { id data
      author: related(name: "author") { id data country: related(name: "country") { data } }
      comments: relatedList(name: "comments", sort: ["-id"], limit: 5) { id user: related(name: "user") { id } }
      tags: relatedList(name: "tags") { id } } } }`;

  test('related and relatedList answer as populate does', async () => {
    const res = await gql(PAGE, { n: 4 });
    expect(res.body.errors).toBeUndefined();
    const rest = await get(
      DATA('posts') + '?ordering=id&page_size=4&populate=author.country,comments.user,tags&comments_sort=-id&comments_limit=5',
    );
    const items = res.body.data.records.items;
    items.forEach((item: any, i: number) => {
      const r = rest.body.data[i];
      expect(item.author?.data ?? null).toEqual(r.author === null ? null : { ...r.author, country: r.author.country?.id ?? null });
      expect(item.author?.country?.data ?? null).toEqual(r.author?.country ?? null);
      expect(item.comments.map((c: any) => Number(c.id))).toEqual(r.comments.map((c: any) => c.id));
      expect(item.comments.map((c: any) => Number(c.user.id))).toEqual(r.comments.map((c: any) => c.user.id));
      expect(item.tags.map((x: any) => Number(x.id)).sort()).toEqual(r.tags.map((x: any) => x.id).sort());
    });
    const bad = await gql('{ records(app: "web", table: "posts") { items { related(name: "nope") { id } } } }');
    expect(bad.body.errors[0].extensions.code).toBe('invalid');
    const wrongKind = await gql('{ records(app: "web", table: "posts", pageSize: 1) { items { related(name: "comments") { id } } } }');
    expect(wrongKind.body.errors[0].extensions.code).toBe('invalid');
  });

  test('a page of 100 with two levels costs the same number of queries as a page of 10', async () => {
    const count = async (n: number) => {
      await gql(PAGE, { n });
      const pool = t.platform.pool;
      const original = pool.query.bind(pool);
      let calls = 0;
      (pool as any).query = (...args: any[]) => {
        const q = args[0];
        if (!isPlatformQuery(typeof q === 'string' ? q : q.text)) calls++;
        return (original as any)(...args);
      };
      try {
        const res = await gql(PAGE, { n });
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.records.items).toHaveLength(n);
      } finally {
        (pool as any).query = original;
      }
      return calls;
    };
    const big = await count(100);
    expect(big).toBe(await count(10));
    // page + author, comments, tags + author.country, comments.user (the access and catalogue reads aside)
    expect(big).toBeLessThanOrEqual(1 + 3 + 2);
  });

  test('related filters and aggregation answer as REST', async () => {
    const filtered = await gql('query ($f: JSON) { records(app: "web", table: "posts", filter: $f, pageSize: 1000) { total } }', {
      f: { 'author.name': 'Ann', 'comments.user': 2 },
    });
    const rest = await get(DATA('posts') + '?author.name=Ann&comments.user=2');
    expect(filtered.body.data.records.total).toBe(rest.body.total);
    const agg = await gql(
      'query ($f: JSON) { aggregate(app: "web", table: "posts", aggregate: ["count(*)", "sum(views)"], groupBy: ["author"], having: ["count__gt=29"], filter: $f) }',
      { f: { views__gte: 1 } },
    );
    const restAgg = await get(DATA('posts') + '?_aggregate=count(*),sum(views)&_group_by=author&_having=count__gt=29&views__gte=1');
    expect(agg.body.data.aggregate).toEqual(restAgg.body);
    const bad = await gql('{ aggregate(app: "web", table: "posts", aggregate: ["nope(x)"]) }');
    expect(bad.body.errors[0].extensions.code).toBe('invalid');
  });
});

describe('hierarchies', () => {
  beforeAll(async () => {
    await createTables(t, { host: HOST, token, app: 'web' }, [
      {
        name: 'categories',
        schema: {
          fields: [f('id', 'integer'), f('name', 'string'), f('parent', 'integer')],
          primaryKey: 'id',
          foreignKeys: [fk('parent', 'categories')],
          hierarchy: { parent_field: 'parent' },
        },
      },
    ]);
    const rows = [
      { id: 1, name: 'root', parent: null },
      { id: 2, name: 'a', parent: 1 },
      { id: 3, name: 'b', parent: 1 },
      { id: 4, name: 'a1', parent: 2 },
      { id: 5, name: 'other', parent: null },
    ];
    for (const r of rows) expect((await post('categories', r)).status).toBe(201);
  });

  test('format=tree nests children from the roots; depth bounds it', async () => {
    const res = await get(DATA('categories') + '?format=tree');
    expect(res.status).toBe(200);
    expect(res.body.data.map((n: any) => n.name)).toEqual(['root', 'other']);
    expect(res.body.data[0].children.map((n: any) => n.name)).toEqual(['a', 'b']);
    expect(res.body.data[0].children[0].children).toEqual([expect.objectContaining({ name: 'a1', children: [] })]);
    const shallow = await get(DATA('categories') + '?format=tree&depth=1');
    expect(shallow.body.data[0].children[0].children).toEqual([]);
  });

  test('format=graph with descendants or ancestors answers nodes and edges; a cycle cannot loop', async () => {
    const down = await get(DATA('categories') + '?format=graph&include=descendants&id=2');
    expect(down.body.data.nodes.map((n: any) => n.id).sort()).toEqual([2, 4]);
    expect(down.body.data.edges).toEqual([{ source: '2', target: '4' }]);
    const up = await get(DATA('categories') + '?format=graph&include=ancestors&id=4');
    expect(up.body.data.nodes.map((n: any) => n.id).sort()).toEqual([1, 2, 4]);
    expect(up.body.data.edges).toHaveLength(2);
    await t.call('PATCH', DATA('categories') + '1/', { token, host: HOST, body: { parent: 4 } }); // 1 → 4 → 2 → 1
    const cyc = await get(DATA('categories') + '?format=graph&id=1');
    expect(cyc.status).toBe(200);
    expect(cyc.body.data.nodes.map((n: any) => n.id).sort()).toEqual([1, 2, 3, 4]);
    const tree = await get(DATA('categories') + '?format=tree&id=1');
    expect(tree.status).toBe(200);
    await t.call('PATCH', DATA('categories') + '1/', { token, host: HOST, body: { parent: null } });
  });

  test('errors: no hierarchy, bad include, depth over 10, unknown format', async () => {
    for (const q of [
      'posts/data/?format=tree',
      'categories/data/?format=tree&depth=11',
      'categories/data/?format=graph&include=x',
      'categories/data/?format=cloud',
      'categories/data/?depth=2',
    ]) {
      const res = await get(`/api/apps/web/datatables/${q}`);
      expect(res.status).toBe(400);
    }
  });
});

describe('fuzz', () => {
  test('1,000 hostile relationship, aggregation and hierarchy parameters: no 5xx, database untouched', async () => {
    let seed = 12;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
    const WORDS = [
      'author',
      'comments',
      'tags',
      'country',
      'user',
      'post_tags',
      '*',
      'name',
      'id',
      'views',
      'nope',
      '',
      ' ',
      "'",
      '"',
      ';',
      '\\',
      '%00',
      '..',
      'a'.repeat(300),
      '$1',
      'count(*)',
      '__gt',
      'posts_by_author',
    ];
    const path = () => Array.from({ length: 1 + Math.floor(rand() * 5) }, () => pick(WORDS)).join(pick(['.', ',', '.', '__']));
    const PARAMS = [
      'populate',
      '_aggregate',
      '_group_by',
      '_having',
      'format',
      'include',
      'depth',
      '_sort',
      'ordering',
      'comments_limit',
      'comments_sort',
      'author_order',
    ];
    const value = () =>
      pick([
        path(),
        `${pick(['count', 'sum', 'avg', 'min', 'max', 'array_agg', 'string_agg', 'json_agg', 'stddev', 'variance', 'nope', 'pg_sleep'])}(${pick(WORDS)})`,
        `count__${pick(['gt', 'lt', 'eq', 'x'])}=${pick(['1', 'x', '1e400', '-0', '1;DROP'])}`,
        pick(['tree', 'graph', 'flat', 'x', 'descendants', 'ancestors', '11', '-1', '99999999999']),
      ]);
    const counts = async () => (await t.platform.pool.query(`SELECT (SELECT count(*) FROM datatables) AS d`)).rows[0];
    const before = await counts();
    const table = () => pick(['posts', 'authors', 'comments', 'tags', 'post_tags']);
    for (let i = 0; i < 1000; i++) {
      const parts = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
        const key = rand() < 0.6 ? pick(PARAMS) : `${path()}${pick(['', '__in', '__gt', '_sort', '__null'])}`;
        return `${encodeURIComponent(key)}=${encodeURIComponent(value())}`;
      });
      const res = await get(`${DATA(table())}?${parts.join('&')}`);
      if (res.status >= 500) throw new Error(`${res.status} for ${parts.join('&')}: ${res.text}`);
      expect([200, 400]).toContain(res.status);
    }
    expect(await counts()).toEqual(before);
    const check = await get(DATA('posts') + '?page_size=1000');
    expect(check.body.total).toBe(120);
  }, 600_000);
});
