// Sorting, paging and search parameters, and the SELECT texts built from them (no I/O).
import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../subgraphs/core/errors.js';
import { parsePackage } from '../../subgraphs/data/model/schema-parse.js';
import type { DataTable, Provider } from '../../subgraphs/data/model/table-model.js';
import { parseDeleted, parsePaging, parseSearch, parseSort, refuseLater } from '../../subgraphs/data/query/list-params.js';
import { recordListFromQuery as fromQuery } from '../../subgraphs/data/query/record-list-input.js';
import { listSpec } from '../../subgraphs/data/query/record-read.service.js';
import { getSql, listSql } from '../../subgraphs/data/query/select-builder.js';

const resource = {
  name: 'posts',
  schema: {
    fields: [
      { name: 'title', type: 'string' },
      { name: 'body', type: 'string' },
      { name: 'views', type: 'integer' },
      { name: 'is_deleted', type: 'boolean' },
    ],
    search_fields: ['title', { name: 'body', weight: 'B' }],
  },
};

function tableOf(provider: Provider = 'flat_table', res: unknown = resource): DataTable {
  const [model] = parsePackage({ resources: [{ ...(res as object), provider }] });
  return {
    id: 3,
    uuid: 'u',
    siteId: 1,
    appId: 2,
    name: model.name,
    provider,
    schemaName: 's1',
    physicalName: provider === 'jsonb' ? '_jsonb_app_2' : 'app_posts',
    version: 1,
    schema: {},
    model,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
}
const flat = tableOf();

function param400(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(400);
    return Object.keys((e as AppError).errors!)[0];
  }
  throw new Error('expected a 400');
}

describe('paging', () => {
  it.each([
    [{}, { style: 'page', offset: 0, limit: 100 }],
    [
      { page: '3', page_size: '20' },
      { style: 'page', offset: 40, limit: 20 },
    ],
    [{ page_size: '5000' }, { style: 'page', offset: 0, limit: 1000 }],
    [
      { limit: '10', offset: '25' },
      { style: 'page', offset: 25, limit: 10 },
    ],
    [{ offset: '7' }, { style: 'page', offset: 7, limit: 100 }],
    [
      { _start: '10', _end: '15' },
      { style: 'range', offset: 10, limit: 5 },
    ],
    [{ _start: '10' }, { style: 'range', offset: 10, limit: 100 }],
    [{ _end: '3' }, { style: 'range', offset: 0, limit: 3 }],
    [
      { _start: '0', _end: '99999' },
      { style: 'range', offset: 0, limit: 1000 },
    ],
    [
      { _start: '5', _end: '5' },
      { style: 'range', offset: 5, limit: 0 },
    ],
    [
      { _start: '1', page: '9' },
      { style: 'range', offset: 1, limit: 100 },
    ],
  ])('%p → %p', (q, expected) => expect(parsePaging(q)).toEqual(expected));

  it.each([
    [{ page: '0' }, 'page'],
    [{ page: '-1' }, 'page'],
    [{ page: '1.5' }, 'page'],
    [{ page_size: '0' }, 'page_size'],
    [{ limit: '0' }, 'limit'],
    [{ offset: 'x' }, 'offset'],
    [{ _start: '-1' }, '_start'],
    [{ _start: '5', _end: '4' }, '_end'],
    [{ page: '99999999999999999' }, 'page'],
    [{ page: '100000000000', page_size: '1000' }, 'page'],
  ])('%p → 400 naming %s', (q, name) => expect(param400(() => parsePaging(q))).toBe(name));
});

describe('sorting, search, soft delete, later parameters', () => {
  const names = (q: Record<string, string>, searching = false) =>
    parseSort(flat, q, searching).map((k) => `${k.desc ? '-' : ''}${k.field?.name ?? 'rank'}`);
  it('parses both forms', () => {
    expect(names({ ordering: '-views,title' })).toEqual(['-views', 'title']);
    expect(names({ ordering: '+views' })).toEqual(['views']);
    expect(names({ _sort: 'views,title', _order: 'desc,asc' })).toEqual(['-views', 'title']);
    expect(names({ _sort: 'views,title', _order: 'DESC' })).toEqual(['-views', '-title']);
    expect(names({ _sort: 'views,title' })).toEqual(['views', 'title']);
    expect(names({ ordering: 'title', _sort: 'views' })).toEqual(['title']);
    expect(names({ ordering: '-rank' }, true)).toEqual(['-rank']);
  });
  it.each([
    [{ ordering: 'nope' }, 'ordering'],
    [{ ordering: 'rank' }, 'ordering'],
    [{ _sort: 'x' }, '_sort'],
    [{ _sort: 'views', _order: 'sideways' }, '_order'],
    [{ _sort: 'views,title,body', _order: 'asc,desc' }, '_order'],
    [{ ordering: 'views,,title' }, 'ordering'],
  ])('%p → 400 naming %s', (q, name) => expect(param400(() => parseSort(flat, q, false))).toBe(name));

  it('search needs search fields and sane text', () => {
    expect(parseSearch(flat, { search: 'cats "brown fox" -dog or mouse' })).toBe('cats "brown fox" -dog or mouse');
    expect(parseSearch(flat, { search: '  ' })).toBeNull();
    expect(param400(() => parseSearch(flat, { search: 'a\u0000' }))).toBe('search');
    expect(param400(() => parseSearch(flat, { search: 'x'.repeat(1001) }))).toBe('search');
    const plain = tableOf('flat_table', { name: 'plain', schema: { fields: [{ name: 'a', type: 'string' }] } });
    expect(param400(() => parseSearch(plain, { search: 'x' }))).toBe('search');
  });

  it('soft delete modes and parameters of a later issue', () => {
    expect(parseDeleted({})).toBe('exclude');
    expect(parseDeleted({ include_deleted: 'true' })).toBe('include');
    expect(parseDeleted({ only_deleted: 'true', include_deleted: 'true' })).toBe('only');
    expect(param400(() => parseDeleted({ only_deleted: 'maybe' }))).toBe('only_deleted');
    for (const p of ['format', 'include', 'depth']) expect(param400(() => refuseLater({ [p]: 'x' }))).toBe(p);
  });
});

describe('SELECT texts', () => {
  it('a flat page: named columns, window total, key tie-break, bound limit and offset', () => {
    const sql = listSql(flat, listSpec(flat, fromQuery({ views__gte: '3', ordering: '-views', page: '2', page_size: '10' })));
    expect(sql.text).toBe(
      'SELECT "t"."id", "t"."title", "t"."body", "t"."views", "t"."is_deleted", count(*) OVER () AS "__total" FROM "s1"."app_posts" AS "t" ' +
        'WHERE "t"."is_deleted" = false AND "t"."views" >= $1::bigint ORDER BY "t"."views" DESC, "t"."id" LIMIT $2 OFFSET $3',
    );
    expect(sql.values).toEqual(['3', 10, 10]);
  });

  it('a jsonb page: the store rows of the table, insertion order', () => {
    const store = tableOf('jsonb');
    const sql = listSql(store, listSpec(store, fromQuery({})));
    expect(sql.text).toBe(
      `SELECT "t"."record_id", "t"."data", "t"."seq", count(*) OVER () AS "__total" FROM "s1"."_jsonb_app_2" AS "t" ` +
        `WHERE "t"."table_id" = $1 AND coalesce(("t"."data"->>'is_deleted')::boolean, false) = false ORDER BY "t"."seq" LIMIT $2 OFFSET $3`,
    );
    expect(sql.values).toEqual([3, 100, 0]);
  });

  it('a search: websearch_to_tsquery, rank, excerpt over the page only, rank order', () => {
    const sql = listSql(flat, listSpec(flat, fromQuery({ search: 'cats' })));
    expect(sql.text).toContain(`"t"."search_vector" @@ websearch_to_tsquery($1::regconfig, $2)`);
    expect(sql.text).toContain(`ts_rank("t"."search_vector", websearch_to_tsquery($1::regconfig, $2)) AS "rank"`);
    expect(sql.text).toMatch(
      /^SELECT "p"\.\*, ts_headline\(\$1::regconfig, concat_ws\(' ', "p"\."title", "p"\."body"\), .*StartSel=<mark>, StopSel=<\/mark>.* FROM \(SELECT .* LIMIT \$3 OFFSET \$4\) AS "p" ORDER BY "rank" DESC, "p"\."id"$/,
    );
    expect(sql.values).toEqual(['english', 'cats', 100, 0]);
    const store = tableOf('jsonb');
    expect(listSql(store, listSpec(store, fromQuery({ search: 'x' }))).text).toContain(
      `|| setweight(to_tsvector($1::regconfig, coalesce(("t"."data"->>'body'), '')), 'B')`,
    );
  });

  it('a read by key, both providers', () => {
    const id = '6F9619FF-8B86-D011-B42D-00C04FC964FF';
    expect(getSql(flat, [id.toLowerCase()], 'exclude')).toEqual({
      text: 'SELECT "t"."id", "t"."title", "t"."body", "t"."views", "t"."is_deleted" FROM "s1"."app_posts" AS "t" WHERE "t"."is_deleted" = false AND "t"."id" = $1::uuid',
      values: [id.toLowerCase()],
    });
    const store = tableOf('jsonb');
    expect(getSql(store, [id], 'include')).toEqual({
      text: 'SELECT "t"."record_id", "t"."data", "t"."seq" FROM "s1"."_jsonb_app_2" AS "t" WHERE "t"."table_id" = $1 AND "t"."record_id" = $2',
      values: [3, id.toLowerCase()],
    });
  });
});
