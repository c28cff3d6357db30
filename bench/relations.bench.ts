// Datatable relationships (issue 12 item 8) on site `bench-rel`: countries (50), authors (2,000,
// each with a country) and posts (100,000, each with an author), made through create_schema and
// filled with INSERT … SELECT generate_series. The bare side is the best hand-written form with
// bare `pg`: one page query plus one `= ANY($1)` query per relationship level, answering the same
// JSON (bench/run.ts checks that the two answers are equal and prints the platform's query count).
import type { Benchmark, BenchEnv } from './bench-types.js';
import { benchCallers } from './callers.js';
import { benchDataTables } from './data-fixture.js';

const HOST = 'bench-rel.localhost';
const field = (name: string, type: string) => ({ name, type });
const fk = (name: string, resource: string) => ({ fields: name, reference: { resource, fields: 'id' } });

const RESOURCES = [
  { name: 'countries', schema: { fields: [field('id', 'integer'), field('name', 'string')], primaryKey: 'id' } },
  {
    name: 'authors',
    schema: {
      fields: [field('id', 'integer'), field('name', 'string'), field('country', 'integer')],
      primaryKey: 'id',
      foreignKeys: [fk('country', 'countries')],
    },
  },
  {
    name: 'posts',
    schema: {
      fields: [field('id', 'integer'), field('title', 'string'), field('views', 'integer'), field('author', 'integer')],
      primaryKey: 'id',
      foreignKeys: [fk('author', 'authors')],
    },
  },
];

let tables: Record<string, string> | null = null;

async function world(env: BenchEnv): Promise<Record<string, string>> {
  if (tables) return tables;
  const t = await benchDataTables(env, 'bench-rel', RESOURCES);
  const q = (sql: string) => env.platform.pool.query(sql);
  await q(`INSERT INTO ${t.countries} ("id", "name") SELECT g, 'country ' || g FROM generate_series(1, 50) AS g`);
  await q(`INSERT INTO ${t.authors} ("id", "name", "country") SELECT g, 'author ' || g, 1 + g % 50 FROM generate_series(1, 2000) AS g`);
  await q(
    `INSERT INTO ${t.posts} ("id", "title", "views", "author")
     SELECT g, 'post ' || g, g % 1000, 1 + (g * 7) % 2000 FROM generate_series(1, 100000) AS g`,
  );
  for (const name of Object.values(t)) await q(`ANALYZE ${name}`);
  tables = t;
  return t;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}`, host: HOST });
const POSTS = '/api/apps/bench/datatables/posts/data/';
const PAGE_25 = `${POSTS}?views__gte=100&ordering=-id&page_size=25&populate=author`;
const PAGE_100 = `${POSTS}?views__gte=100&ordering=-id&page_size=100&populate=author.country`;
const AGGREGATE = `${POSTS}?_aggregate=count(*),sum(views)&_group_by=author`;

type Row = Record<string, unknown>;

/** The page the platform reads: posts with at least `minViews` views, newest id first, with the total. */
async function bestPage(env: BenchEnv, size: number, minViews = '100'): Promise<{ rows: Row[]; total: number }> {
  const t = await world(env);
  const { rows } = await env.platform.pool.query({
    name: `bare_rel_page_${size}`,
    text: `SELECT "id", "title", "views", "author", count(*) OVER () AS "__total" FROM ${t.posts}
           WHERE "views" >= $1::bigint ORDER BY "id" DESC LIMIT $2 OFFSET 0`,
    values: [minViews, size],
  });
  const total = rows.length ? Number(rows[0].__total) : 0;
  return { rows: rows.map(({ __total, ...r }) => r), total };
}

/** One `= ANY` query: the rows of `table` with these ids, by id. */
async function byIds(env: BenchEnv, name: string, table: string, columns: string, ids: unknown[]): Promise<Map<unknown, Row>> {
  const { rows } = await env.platform.pool.query({
    name: `bare_rel_any_${name}`,
    text: `SELECT ${columns} FROM ${table} WHERE "id" = ANY($1::bigint[])`,
    values: [[...new Set(ids.filter((v) => v !== null))]],
  });
  return new Map(rows.map((r) => [r.id, r]));
}

/** The authors of a page's posts: one `= ANY` query. */
async function authorsOf(env: BenchEnv, posts: Row[]): Promise<Map<unknown, Row>> {
  const t = await world(env);
  return byIds(
    env,
    'authors',
    t.authors,
    '"id", "name", "country"',
    posts.map((r) => r.author),
  );
}

const GQL_PAGE = `query Posts($filter: JSON, $sort: [String!]) {
  records(app: "bench", table: "posts", filter: $filter, sort: $sort, pageSize: 25) {
    total page pageSize items { id data author: related(name: "author") { id data } }
  }
}`;

export const RELATIONS_BENCHMARKS: Benchmark[] = [
  {
    name: 'rel-populate GET posts ?populate=author (25)',
    prepare: async (env) => {
      await world(env);
      return { method: 'GET', url: PAGE_25, headers: auth(env.token) };
    },
    // 200 callers × 500 different filters (views__gte from 0 to 998): other pages, other authors.
    cold: async (env) => {
      await world(env);
      const tokens = await benchCallers(env, 'bench-rel-org', ['view_site', 'data:read'], 200);
      return Array.from({ length: 500 }, (_, i) => ({
        method: 'GET' as const,
        url: PAGE_25.replace('views__gte=100', `views__gte=${i * 2}`),
        headers: auth(tokens[i % tokens.length]),
      }));
    },
    bare: (env) => async (request) => {
      const minViews = /views__gte=(\d+)/.exec(request.url)?.[1] ?? '100';
      const page = await bestPage(env, 25, minViews);
      const authors = await authorsOf(env, page.rows);
      return {
        data: page.rows.map((r) => ({ ...r, author: r.author === null ? null : (authors.get(r.author) ?? null) })),
        total: page.total,
        page: 1,
        page_size: 25,
      };
    },
  },
  {
    name: 'rel-gql records(25) { related(author) }',
    prepare: async (env) => {
      await world(env);
      return {
        method: 'POST',
        url: '/graphql',
        headers: auth(env.token),
        body: { operationName: 'Posts', query: GQL_PAGE, variables: { filter: { views__gte: 100 }, sort: ['-id'] } },
      };
    },
    rest: async (env) => ({ method: 'GET', url: PAGE_25, headers: auth(env.token) }),
    bare: (env) => async () => {
      const page = await bestPage(env, 25);
      const authors = await authorsOf(env, page.rows);
      return {
        data: {
          records: {
            total: page.total,
            page: 1,
            pageSize: 25,
            items: page.rows.map((r) => {
              const a = r.author === null ? null : authors.get(r.author);
              return { id: String(r.id), data: r, author: a ? { id: String(a.id), data: a } : null };
            }),
          },
        },
      };
    },
  },
  {
    name: 'rel-populate GET posts ?populate=author.country (100, two levels)',
    prepare: async (env) => {
      await world(env);
      return { method: 'GET', url: PAGE_100, headers: auth(env.token) };
    },
    bare: (env) => async () => {
      const t = await world(env);
      const page = await bestPage(env, 100);
      const authors = await authorsOf(env, page.rows);
      const countries = await byIds(
        env,
        'countries',
        t.countries,
        '"id", "name"',
        [...authors.values()].map((a) => a.country),
      );
      const withCountry = (a: Row | undefined) =>
        a ? { ...a, country: a.country === null ? null : (countries.get(a.country) ?? null) } : null;
      return {
        data: page.rows.map((r) => ({ ...r, author: r.author === null ? null : withCountry(authors.get(r.author)) })),
        total: page.total,
        page: 1,
        page_size: 100,
      };
    },
  },
  {
    name: 'rel-aggregate GET posts ?_aggregate=count(*),sum(views)&_group_by=author (100,000 rows)',
    prepare: async (env) => {
      await world(env);
      return { method: 'GET', url: AGGREGATE, headers: auth(env.token) };
    },
    bare: (env) => async () => {
      const t = await world(env);
      const { rows } = await env.platform.pool.query({
        name: 'bare_rel_aggregate',
        text: `SELECT "author", count(*) AS "count", sum("views") AS "sum_views", count(*) OVER () AS "__total"
               FROM ${t.posts} GROUP BY "author" ORDER BY "author" LIMIT $1 OFFSET 0`,
        values: [100], // the list's default page size
      });
      const total = rows.length ? Number(rows[0].__total) : 0;
      return {
        data: rows.map((r) => ({ author: r.author, count: Number(r.count), sum_views: Number(r.sum_views) })),
        total,
      };
    },
  },
];
