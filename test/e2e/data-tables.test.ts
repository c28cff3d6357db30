// Datatables through REST (DECISIONS §6, docs/data-service.md "Tables"): create_schema for both
// providers, references in any order, every database-enforced constraint, list, read, delete.
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const SHOP = 'shop.tables.test';
let t: TestApp;
let tok: string;
let readerTok: string;

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const as = (token = tok) => ({ token, host: SHOP });
const create = (resources: unknown[], qs = '', token = tok) =>
  t.call('POST', `/api/apps/web/datatables/create_schema/${qs}`, { ...as(token), body: { resources } });

beforeAll(async () => {
  t = await startTestApp();
  const [owner, reader] = await Promise.all([t.createUser(), t.createUser()]);
  tok = t.tokenFor(owner);
  readerTok = t.tokenFor(reader);
  const org = await insertOrg(t.platform, 'acme', owner.id);
  const site = await insertSite(t.platform, org.id, 'shop', SHOP);
  await insertApp(t.platform, site.id, 'web');
  await q(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{view_site,data:read}')`, [
    org.id,
    reader.id,
  ]);
});
afterAll(() => t.close());

const authors = {
  name: 'authors',
  schema: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'email', type: 'string', format: 'email', constraints: { unique: true, required: true } },
    ],
    primaryKey: 'id',
  },
};
const posts = {
  name: 'posts',
  schema: {
    fields: [
      { name: 'title', type: 'string', constraints: { required: true, maxLength: 20 } },
      { name: 'body', type: 'string' },
      { name: 'views', type: 'integer', default: 0, constraints: { minimum: 0 } },
      { name: 'status', type: 'string', constraints: { enum: ['draft', 'published'] }, default: 'draft' },
      { name: 'author', type: 'integer' },
      { name: 'parent', type: 'string', format: 'uuid' },
      { name: 'is_deleted', type: 'boolean' },
      { name: 'created_at', type: 'datetime' },
    ],
    foreignKeys: [
      { fields: 'author', reference: { resource: 'authors', fields: 'id' }, 'x-actions': { onDelete: 'SET NULL' } },
      { fields: 'parent', reference: { resource: '', fields: 'id' }, 'x-actions': { onDelete: 'CASCADE' } },
    ],
    search_fields: ['title', { name: 'body', weight: 'B' }],
  },
};

describe('create_schema', () => {
  test('creates referencing tables in any order with every constraint in the database', async () => {
    const res = await create([posts, authors]);
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('success');
    expect(res.body.data.map((v: any) => v.name)).toEqual(['posts', 'authors']);
    expect(res.body.data[0]).toMatchObject({ physical_name: 'web_posts', provider: 'flat_table', row_count: 0 });
    const tbl = '"shop"."web_posts"';
    const [a] = await q('INSERT INTO "shop"."web_authors" (email) VALUES ($1) RETURNING id', ['a@x.test']);
    expect(a.id).toBe(1);
    const [p] = await q(`INSERT INTO ${tbl} (title, author) VALUES ('Hello', $1) RETURNING *`, [a.id]);
    expect(p).toMatchObject({ views: 0, status: 'draft', is_deleted: false });
    expect(p.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.created_at).toBeInstanceOf(Date);
    const bad = async (sql: string, params: unknown[] = []) =>
      (await t.platform.pool.query(sql, params).then(
        () => null,
        (e) => e.code,
      )) as string | null;
    expect(await bad(`INSERT INTO ${tbl} (title) VALUES (NULL)`)).toBe('23502');
    expect(await bad(`INSERT INTO ${tbl} (title) VALUES (repeat('x', 21))`)).toBe('23514');
    expect(await bad(`INSERT INTO ${tbl} (title, views) VALUES ('a', -1)`)).toBe('23514');
    expect(await bad(`INSERT INTO ${tbl} (title, status) VALUES ('a', 'gone')`)).toBe('23514');
    expect(await bad(`INSERT INTO ${tbl} (title, author) VALUES ('a', 999)`)).toBe('23503');
    expect(await bad('INSERT INTO "shop"."web_authors" (email) VALUES ($1)', ['a@x.test'])).toBe('23505');
    await q(`INSERT INTO ${tbl} (title, parent) VALUES ('child', $1)`, [p.id]);
    await q('DELETE FROM "shop"."web_authors"');
    const rows = await q(`SELECT author FROM ${tbl} WHERE id = $1`, [p.id]);
    expect(rows[0].author).toBeNull(); // SET NULL
    await q(`DELETE FROM ${tbl} WHERE id = $1`, [p.id]);
    expect(await q(`SELECT * FROM ${tbl}`)).toEqual([]); // CASCADE on the self reference
    const [{ v }] = await q(`SELECT to_tsvector('english', 'running') @@ websearch_to_tsquery('english', 'run') AS v`);
    expect(v).toBe(true);
    await q(`INSERT INTO ${tbl} (title, body) VALUES ('Cats running', 'and dogs')`);
    const hits = await q(`SELECT title FROM ${tbl} WHERE search_vector @@ websearch_to_tsquery('english', 'run')`);
    expect(hits).toEqual([{ title: 'Cats running' }]);
    const idx = await q(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'shop' AND tablename = 'web_posts'`);
    expect(idx.map((r: any) => r.indexdef).join('\n')).toMatch(/gin \(search_vector\)[\s\S]*|author/);
    expect(idx.length).toBe(4); // pkey, search GIN, author index, parent index
  });

  test('jsonb provider: rows in the app store, unique as a partial index', async () => {
    const [v] = await createTables(t, { host: SHOP, token: tok, app: 'web' }, [
      {
        name: 'notes',
        provider: 'jsonb',
        schema: {
          fields: [
            { name: 'code', type: 'string', constraints: { unique: true } },
            { name: 'n', type: 'integer' },
          ],
        },
      },
    ]);
    expect(v).toMatchObject({ physical_name: expect.stringMatching(/^_jsonb_app_\d+$/), provider: 'jsonb', row_count: 0 });
    const [{ id }] = await q(`SELECT id FROM datatables WHERE name = 'notes'`);
    const store = `"shop"."${v.physical_name}"`;
    await q(`INSERT INTO ${store} (table_id, record_id, data) VALUES ($1, 'a', '{"code":"x"}')`, [id]);
    await expect(q(`INSERT INTO ${store} (table_id, record_id, data) VALUES ($1, 'b', '{"code":"x"}')`, [id])).rejects.toMatchObject({
      code: '23505',
    });
    const got = await t.call('GET', '/api/apps/web/datatables/notes/', as());
    expect(got.body.row_count).toBe(1);
  });

  test('invalid packages: 400 naming paths; nothing created', async () => {
    const res = await create([
      { name: 'good', schema: { fields: [{ name: 'a' }] } },
      { name: 'bad', schema: { fields: [{ name: 'x', type: 'wat' }], foreignKeys: [] } },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.details['resources[1].schema.fields[0].type']).toBeDefined();
    const ref = await create([
      {
        name: 'c',
        schema: { fields: [{ name: 'o', type: 'integer' }], foreignKeys: [{ fields: 'o', reference: { resource: 'nope', fields: 'id' } }] },
      },
    ]);
    expect(ref.status).toBe(400);
    expect(Object.keys(ref.body.details)).toEqual(['resources[0].schema.foreignKeys[0].reference.resource']);
    const lang = await create([{ name: 'c', schema: { fields: [{ name: 'o' }], search_fields: ['o'], search_language: 'klingon' } }]);
    expect(lang.status).toBe(400);
    expect(lang.body.details['resources[0].schema.search_language']).toBeDefined();
    expect(await q(`SELECT name FROM datatables WHERE name IN ('good', 'c')`)).toEqual([]);
    expect(await q(`SELECT 1 FROM pg_class WHERE relname = 'web_good'`)).toEqual([]);
  });

  test('a database failure mid-package rolls everything back', async () => {
    await q('CREATE TABLE "shop"."web_stray" (x int)');
    const res = await create([
      { name: 'fine', schema: { fields: [{ name: 'a' }] } },
      { name: 'stray', schema: { fields: [{ name: 'a' }] } },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.details['resources[1].name']).toBeDefined();
    expect(await q(`SELECT 1 FROM pg_class WHERE relname = 'web_fine'`)).toEqual([]);
  });

  test('permissions: data:write needed, 404 unknown app, 401 anonymous', async () => {
    const spec = [{ name: 'x', schema: { fields: [{ name: 'a' }] } }];
    expect((await create(spec, '', readerTok)).status).toBe(403);
    expect((await t.call('POST', '/api/apps/nope/datatables/create_schema/', { ...as(), body: { resources: spec } })).status).toBe(404);
    expect((await t.call('POST', '/api/apps/web/datatables/create_schema/', { host: SHOP, body: { resources: spec } })).status).toBe(401);
  });
});

describe('list, read, delete', () => {
  test('list: {data, total, page, page_size}; read with row_count', async () => {
    const list = await t.call('GET', '/api/apps/web/datatables/?page_size=2', as(readerTok));
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(list.body.data.map((v: any) => v.name)).toEqual(['authors', 'notes']);
    const one = await t.call('GET', '/api/apps/web/datatables/posts/', as(readerTok));
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: 'posts', physical_name: 'web_posts', row_count: 1 });
    expect(one.body.schema.fields[0]).toMatchObject({ name: 'id', type: 'string', format: 'uuid' });
    const missing = await t.call('GET', '/api/apps/web/datatables/nope/', as());
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Datatable not found.', detail: expect.any(String) });
  });

  test('delete: 400 while referenced, force drops the foreign keys too', async () => {
    const refused = await t.call('DELETE', '/api/apps/web/datatables/authors/', as());
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.details)).toContain('posts');
    expect((await t.call('DELETE', '/api/apps/web/datatables/authors/', as(readerTok))).status).toBe(403);
    const forced = await t.call('DELETE', '/api/apps/web/datatables/authors/?force=true', as());
    expect(forced.status).toBe(204);
    expect(await q(`SELECT 1 FROM pg_class WHERE relname = 'web_authors'`)).toEqual([]);
    const [row] = await q(`SELECT schema, version FROM datatables WHERE name = 'posts'`);
    expect(row.version).toBe(2);
    expect(row.schema.foreignKeys.map((fk: any) => fk.fields)).toEqual([['parent']]);
    expect((await t.call('DELETE', '/api/apps/web/datatables/notes/', as())).status).toBe(204);
    expect((await t.call('DELETE', '/api/apps/web/datatables/notes/', as())).status).toBe(404);
  });
});

describe('hostile input', () => {
  test('hostile packages answer 400 or 201, never 500, and leave the database sound', async () => {
    const hostile = [
      { name: 'x"; DROP TABLE datatables; --', schema: { fields: [{ name: 'a' }] } },
      { name: 'h1', schema: { fields: [{ name: 'a"b' }] } },
      { name: 'h2', description: 'nul\u0000here', schema: { fields: [{ name: 'a' }] } },
      { name: 'h3', schema: { fields: [{ name: 'a', default: "x'); DROP TABLE datatables; --" }] } },

      { name: 'h5', schema: { fields: [{ name: 'a', type: 'number', constraints: { minimum: 1e308, maximum: 1.7e308 } }] } },
      { name: 'h6', schema: { fields: [{ name: 'a', type: 'integer', default: 1e20 }] } },
      { name: 'h7', schema: { fields: [{ name: 'a', constraints: { enum: ["'", '\\', 'ü 日本', '$$'] } }] } },
      { name: 'h8', schema: { fields: [{ name: 'a' }], search_fields: ['a'], search_language: "english'" } },
      { name: 'h9'.repeat(40), schema: { fields: [{ name: 'a' }] } },
      { name: 'h10', schema: { fields: [{ name: 'é' }] } },
    ];
    for (const r of hostile) {
      const res = await create([r]);
      expect([201, 400]).toContain(res.status);
    }
    // Nesting deeper than a JSON serializer's stack: sent as text.
    const depth = 20000;
    const deep = `{"resources":[{"name":"h4","schema":{"fields":[{"name":"a","type":"object","default":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}]}}]}`;
    const res = await t.call('POST', '/api/apps/web/datatables/create_schema/', { ...as(), body: deep });
    expect([201, 400]).toContain(res.status);
    expect((await q('SELECT count(*)::int AS n FROM datatables'))[0].n).toBeGreaterThan(0);
  });
});
