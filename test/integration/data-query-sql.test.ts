// The query builder against real PostgreSQL, without the HTTP edge: the same rows in a
// flat_table and in a jsonb store, every operator on every type it applies to, sorting,
// paging, search and soft delete; both providers must select the same records.
import pg from 'pg';
import { columnTypeOf } from '../../subgraphs/data/model/field-parse.js';
import { rowToRecord } from '../../subgraphs/data/model/codec.js';
import { parsePackage } from '../../subgraphs/data/model/schema-parse.js';
import type { DataTable, Provider } from '../../subgraphs/data/model/table-model.js';
import { recordListFromQuery as fromQuery } from '../../subgraphs/data/query/record-list-input.js';
import { listSpec } from '../../subgraphs/data/query/record-read.service.js';
import { countSql, getSql, listSql } from '../../subgraphs/data/query/select-builder.js';
import { ident, RECORD_TYPES } from '../../subgraphs/data/sql.js';
import { createTestDatabase } from '../support/db.js';
import { CASES, resource, ROWS } from './data-query-cases.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const tables: Record<Provider, DataTable> = {} as Record<Provider, DataTable>;

function tableOf(provider: Provider, id: number): DataTable {
  const [model] = parsePackage({ resources: [{ ...resource, provider }] });
  return {
    id,
    uuid: '00000000-0000-0000-0000-000000000001',
    siteId: 1,
    appId: 2,
    name: 'posts',
    provider,
    schemaName: 'site_q',
    physicalName: provider === 'jsonb' ? '_jsonb_app_2' : 'shop_posts',
    version: 1,
    schema: {},
    model,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
}

const JSON_FIELDS = new Set(['meta', 'tags', 'extra']);
const asParam = (name: string, v: unknown) => (v !== null && JSON_FIELDS.has(name) ? JSON.stringify(v) : v);

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  pool.on('error', () => {}); // idle clients of a dropped test database
  tables.flat_table = tableOf('flat_table', 7);
  tables.jsonb = tableOf('jsonb', 7);
  const fields = tables.flat_table.model.fields;
  const cols = fields.map((f) => `${ident(f.name)} ${columnTypeOf(f)}${f.name === 'id' ? ' PRIMARY KEY' : ''}`);
  await pool.query('CREATE SCHEMA site_q');
  await pool.query(
    `CREATE TABLE site_q.shop_posts (${cols.join(', ')}, search_vector tsvector GENERATED ALWAYS AS ` +
      `(setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(body, '')), 'B')) STORED)`,
  );
  await pool.query(
    'CREATE TABLE site_q._jsonb_app_2 (table_id integer, record_id text, data jsonb, seq bigint GENERATED ALWAYS AS IDENTITY, published_at timestamptz DEFAULT now(), PRIMARY KEY (table_id, record_id))',
  );
  for (const r of ROWS) {
    const names = fields.map((f) => f.name);
    await pool.query(
      `INSERT INTO site_q.shop_posts (${names.map(ident).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
      names.map((n) => asParam(n, r[n])),
    );
    await pool.query('INSERT INTO site_q._jsonb_app_2 (table_id, record_id, data) VALUES (7, $1, $2), (8, $1, $3)', [
      String(r.id),
      r,
      { ...r, title: 'other table' },
    ]);
  }
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function list(provider: Provider, query: Record<string, string>) {
  const table = tables[provider];
  const spec = listSpec(table, fromQuery({ include_deleted: 'true', ...query }));
  const sql = listSql(table, spec);
  const res = await pool.query({ text: sql.text, values: sql.values, types: RECORD_TYPES });
  const records = res.rows.map((r) => rowToRecord(table, r));
  let total = res.rows.length ? Number(res.rows[0].__total) : 0;
  if (!res.rows.length && spec.paging.offset > 0) {
    const c = countSql(table, spec);
    total = Number((await pool.query(c.text, c.values)).rows[0].n);
  }
  return { records, total, ids: records.map((r) => r.id) };
}

const sorted = (ids: unknown[]) => [...ids].sort((a, b) => Number(a) - Number(b));

describe.each(['flat_table', 'jsonb'] as Provider[])('%s provider', (provider) => {
  it.each(CASES)('%p', async (query, expected) => {
    const { ids, total } = await list(provider, query);
    expect(sorted(ids)).toEqual(expected);
    expect(total).toBe(expected.length);
  });

  it('reads the other table of the store never', async () => {
    const { records } = await list(provider, {});
    expect(records.map((r) => r.title)).not.toContain('other table');
    expect(records).toHaveLength(6);
  });

  it('soft delete: exclude by default, include, only', async () => {
    const table = tables[provider];
    const run = async (q: Record<string, string>) => {
      const sql = listSql(table, listSpec(table, fromQuery(q)));
      return sorted(
        (await pool.query({ text: sql.text, values: sql.values, types: RECORD_TYPES })).rows.map((r) => rowToRecord(table, r).id),
      );
    };
    expect(await run({})).toEqual([1, 2, 3, 4, 6]);
    expect(await run({ include_deleted: 'true' })).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await run({ only_deleted: 'true' })).toEqual([5]);
  });

  it('sorts by ordering and by _sort/_order, several fields, ties by key', async () => {
    expect((await list(provider, { ordering: '-views' })).ids).toEqual([4, 6, 3, 2, 1, 5]);
    expect((await list(provider, { ordering: 'published,-views' })).ids).toEqual([2, 6, 3, 1, 4, 5]);
    expect((await list(provider, { _sort: 'published,views', _order: 'asc,desc' })).ids).toEqual([2, 6, 3, 1, 4, 5]);
    expect((await list(provider, { _sort: 'score', _order: 'desc' })).ids).toEqual([3, 5, 2, 1, 4, 6]);
    expect((await list(provider, { _sort: 'is_deleted' })).ids).toEqual([1, 2, 3, 4, 6, 5]);
  });

  it('pages in three forms with an exact total', async () => {
    const p = await list(provider, { ordering: 'id', page: '2', page_size: '4' });
    expect(p.ids).toEqual([5, 6]);
    expect(p.total).toBe(6);
    expect((await list(provider, { ordering: 'id', limit: '2', offset: '3' })).ids).toEqual([4, 5]);
    expect((await list(provider, { ordering: 'id', _start: '1', _end: '3' })).ids).toEqual([2, 3]);
    const past = await list(provider, { page: '9', page_size: '5' });
    expect(past).toMatchObject({ ids: [], total: 6 });
  });

  it('searches with stemming, stop words, phrases, exclusion, or; ranked, with excerpts', async () => {
    const ids = async (search: string) => sorted((await list(provider, { search })).ids);
    expect(await ids('cat')).toEqual([1, 2, 5, 6]);
    expect(await ids('running')).toEqual([1, 2]);
    expect(await ids('the cats')).toEqual([1, 2, 5, 6]);
    expect(await ids('"brown fox"')).toEqual([3]);
    expect(await ids('"fox brown"')).toEqual([]);
    expect(await ids('cats -dogs')).toEqual([1, 5]);
    expect(await ids('fox or goodbye')).toEqual([3, 5]);
    const ranked = await list(provider, { search: 'cats' });
    expect(ranked.ids[0]).toBe(5);
    const ranks = ranked.records.map((r) => r.rank as number);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
    expect(ranked.records[0].excerpt).toContain('<mark>cats</mark>');
    expect((await list(provider, { search: 'hello', ordering: '-views' })).ids).toEqual([6, 2, 1]);
    expect((await list(provider, { search: 'hello', ordering: 'rank' })).records).toHaveLength(3);
  });

  it('reads one record by key, soft delete respected', async () => {
    const table = tables[provider];
    const read = async (key: unknown[], deleted: 'exclude' | 'include') => {
      const sql = getSql(table, key, deleted);
      return (await pool.query({ text: sql.text, values: sql.values, types: RECORD_TYPES })).rows.map((r) => rowToRecord(table, r));
    };
    const [one] = await read(['1'], 'exclude');
    expect(one).toMatchObject({
      id: 1,
      title: 'Hello World',
      views: 10,
      day: '2026-01-01',
      at: '08:00:00',
      published_at: '2026-01-01T10:00:00.000Z',
      meta: { a: 1, b: { c: 'x' } },
    });
    expect(one).not.toHaveProperty('search_vector');
    expect(await read(['5'], 'exclude')).toEqual([]);
    expect(await read(['5'], 'include')).toHaveLength(1);
    expect(await read(['99'], 'include')).toEqual([]);
  });
});
