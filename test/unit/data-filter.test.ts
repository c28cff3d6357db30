import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../subgraphs/core/errors.js';
import { parsePackage } from '../../subgraphs/data/model/schema-parse.js';
import type { DataTable, Provider } from '../../subgraphs/data/model/table-model.js';
import { buildWhere, parseFilters, type DeletedMode } from '../../subgraphs/data/query/filter.js';
import { Params } from '../../subgraphs/data/sql.js';

const posts = {
  name: 'posts',
  schema: {
    fields: [
      { name: 'title', type: 'string' },
      { name: 'ref', type: 'string', format: 'uuid' },
      { name: 'views', type: 'integer' },
      { name: 'score', type: 'number' },
      { name: 'published', type: 'boolean' },
      { name: 'day', type: 'date' },
      { name: 'at', type: 'time' },
      { name: 'created_at', type: 'datetime' },
      { name: 'meta', type: 'object' },
      { name: 'tags', type: 'array' },
      { name: 'extra', type: 'any' },
      { name: 'page', type: 'integer' },
      { name: 'is_deleted', type: 'boolean' },
    ],
  },
};

export function tableOf(resource: unknown = posts, provider: Provider = 'flat_table'): DataTable {
  const [model] = parsePackage({ resources: [{ ...(resource as object), provider }] });
  return {
    id: 7,
    uuid: '00000000-0000-0000-0000-000000000007',
    siteId: 1,
    appId: 2,
    name: model.name,
    provider,
    schemaName: 'site_one',
    physicalName: provider === 'jsonb' ? '_jsonb_app_2' : 'shop_posts',
    version: 1,
    schema: {},
    model,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
}

const flat = tableOf();
const store = tableOf(posts, 'jsonb');

function sql(entries: Array<[string, unknown]>, table = flat, deleted: DeletedMode = 'include') {
  const params = new Params();
  const text = buildWhere(table, parseFilters(table, entries), params, { deleted });
  return { text, values: params.values };
}

function badParam(entries: Array<[string, unknown]>, table = flat): [string, string] {
  try {
    parseFilters(table, entries);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    expect(err.status).toBe(400);
    const [key, msgs] = Object.entries(err.errors!)[0];
    return [key, msgs[0]];
  }
  throw new Error(`expected 400 for ${JSON.stringify(entries)}`);
}

describe('filter parsing and SQL: flat_table scalars', () => {
  const cases: Array<[string, unknown, string, unknown[]]> = [
    ['title', 'a', '"title" = $1::text', ['a']],
    ['title__eq', 'a', '"title" = $1::text', ['a']],
    ['title__ne', 'a', '"title" IS DISTINCT FROM $1::text', ['a']],
    ['title_ne', 'a', '"title" IS DISTINCT FROM $1::text', ['a']],
    ['views__gt', '5', '"views" > $1::bigint', ['5']],
    ['views_gte', '5', '"views" >= $1::bigint', ['5']],
    ['views__lt', 5, '"views" < $1::bigint', [5]],
    ['views__lte', '-5', '"views" <= $1::bigint', ['-5']],
    ['score__gt', '1.5', '"score" > $1::double precision', [1.5]],
    ['score__between', '1,2.5', '"score" BETWEEN $1::double precision AND $2::double precision', [1, 2.5]],
    ['views__nbetween', '1,9', 'NOT coalesce("views" BETWEEN $1::bigint AND $2::bigint, false)', ['1', '9']],
    ['day__gte', '2026-02-28', '"day" >= $1::date', ['2026-02-28']],
    ['at__lt', '12:30', '"at" < $1::time', ['12:30']],
    ['created_at__gte', '2026-01-02T03:04:05+01:00', '"created_at" >= $1::timestamptz', ['2026-01-02T02:04:05.000Z']],
    ['created_at__lt', '2026-01-02', '"created_at" < $1::timestamptz', ['2026-01-02T00:00:00.000Z']],
    ['published', 'true', '"published" = $1::boolean', [true]],
    ['published__ne', 'false', '"published" IS DISTINCT FROM $1::boolean', [false]],
    ['views__in', '1,2,3', '"views" = ANY($1::bigint[])', [['1', '2', '3']]],
    ['title__in', 'a,b', '"title" = ANY($1::text[])', [['a', 'b']]],
    ['title__ins', 'a,B', '"title" = ANY($1::text[])', [['a', 'B']]],
    ['title__nin', 'a,b', 'NOT coalesce("title" = ANY($1::text[]), false)', [['a', 'b']]],
    ['title__ina', 'A,b', 'lower("title") IN (SELECT lower(u) FROM unnest($1::text[]) AS u)', [['A', 'b']]],
    ['title__nina', 'A', 'NOT coalesce(lower("title") IN (SELECT lower(u) FROM unnest($1::text[]) AS u), false)', [['A']]],
    ['day__in', '2026-01-01,2026-01-02', '"day" = ANY($1::date[])', [['2026-01-01', '2026-01-02']]],
    ['title__contains', '50%_off', 'strpos("title", $1::text) > 0', ['50%_off']],
    ['title__containss', 'X', 'strpos("title", $1::text) > 0', ['X']],
    ['title__ncontains', 'x', 'NOT coalesce(strpos("title", $1::text) > 0, false)', ['x']],
    ['title__icontains', 'x', 'strpos(lower("title"), lower($1::text)) > 0', ['x']],
    ['title__nicontains', 'x', 'NOT coalesce(strpos(lower("title"), lower($1::text)) > 0, false)', ['x']],
    ['title__startswith', 'x', 'starts_with("title", $1::text)', ['x']],
    ['title__startswiths', 'x', 'starts_with("title", $1::text)', ['x']],
    ['title__nstartswith', 'x', 'NOT coalesce(starts_with("title", $1::text), false)', ['x']],
    ['title__istartswith', 'x', 'starts_with(lower("title"), lower($1::text))', ['x']],
    ['title__endswith', 'x', 'right("title", char_length($1::text)) = $1::text', ['x']],
    ['title__endswiths', 'x', 'right("title", char_length($1::text)) = $1::text', ['x']],
    ['title__nendswith', 'x', 'NOT coalesce(right("title", char_length($1::text)) = $1::text, false)', ['x']],
    ['title__iendswith', 'x', 'right(lower("title"), char_length($1::text)) = lower($1::text)', ['x']],
    ['ref__contains', 'abc', 'strpos(("ref")::text, $1::text) > 0', ['abc']],
    ['ref', '6F9619FF-8B86-D011-B42D-00C04FC964FF', '"ref" = $1::uuid', ['6f9619ff-8b86-d011-b42d-00c04fc964ff']],
    ['title__null', 'true', '"title" IS NULL', []],
    ['title__null', 'false', '"title" IS NOT NULL', []],
    ['views__nnull', 'true', '"views" IS NOT NULL', []],
    ['views__nnull', 'false', '"views" IS NULL', []],
    ['page__eq', '3', '"page" = $1::bigint', ['3']],
    ['page_gt', '3', '"page" > $1::bigint', ['3']],
  ];
  it.each(cases)('%s=%p', (key, value, text, values) => {
    expect(sql([[key, value]])).toEqual({ text, values });
  });

  it('ANDs several conditions with running placeholders', () => {
    expect(
      sql([
        ['views__gte', '1'],
        ['title', 'a'],
      ]),
    ).toEqual({ text: '"views" >= $1::bigint AND "title" = $2::text', values: ['1', 'a'] });
  });

  it('takes JSON values from a filter object', () => {
    expect(
      sql([
        ['views__in', [1, 2]],
        ['published', true],
        ['score', 2.5],
      ]).values,
    ).toEqual([[1, 2], true, 2.5]);
    expect(sql([['title', null]]).text).toBe('"title" IS NULL');
    expect(sql([['title__ne', null]]).text).toBe('"title" IS NOT NULL');
  });

  it('handles soft delete and aliases', () => {
    expect(sql([], flat, 'exclude').text).toBe('"is_deleted" = false');
    expect(sql([], flat, 'only').text).toBe('"is_deleted" = true');
    expect(sql([], flat, 'include').text).toBe('TRUE');
    const params = new Params();
    expect(buildWhere(flat, parseFilters(flat, [['views', '1']]), params, { deleted: 'exclude', alias: 't' })).toBe(
      '"t"."is_deleted" = false AND "t"."views" = $1::bigint',
    );
    const plain = tableOf({ name: 'plain', schema: { fields: [{ name: 'a', type: 'string' }] } });
    expect(sql([], plain, 'exclude').text).toBe('TRUE');
    expect(sql([], plain, 'only').text).toBe('FALSE');
  });
});

describe('filter parsing and SQL: JSON fields and nested paths', () => {
  const cases: Array<[string, unknown, string, unknown[]]> = [
    ['meta', '{"a":1}', '"meta" = $1::jsonb', ['{"a":1}']],
    ['meta__ne', '{"a":1}', '"meta" IS DISTINCT FROM $1::jsonb', ['{"a":1}']],
    ['meta__contains', '{"a":1}', '"meta" @> $1::jsonb', ['{"a":1}']],
    ['meta__contains', { a: [1] }, '"meta" @> $1::jsonb', ['{"a":[1]}']],
    ['tags__contains', '["x"]', '"tags" @> $1::jsonb', ['["x"]']],
    ['tags__contained_by', '["x","y"]', '"tags" <@ $1::jsonb', ['["x","y"]']],
    ['meta__has_key', 'a', '"meta" ? $1::text', ['a']],
    ['meta__has_any_keys', 'a,b', '"meta" ?| $1::text[]', [['a', 'b']]],
    ['extra__has_all_keys', 'a,b', '"extra" ?& $1::text[]', [['a', 'b']]],
    ['meta__null', 'true', `nullif("meta", 'null'::jsonb) IS NULL`, []],
    ['meta__a', 'x', '("meta" #> $1::text[]) = $2::jsonb', [['a'], '"x"']],
    ['meta__a__b', '5', '("meta" #> $1::text[]) = $2::jsonb', [['a', 'b'], '5']],
    ['meta__a__eq', 'true', '("meta" #> $1::text[]) = $2::jsonb', [['a'], 'true']],
    ['meta__a__ne', 'x', '("meta" #> $1::text[]) IS DISTINCT FROM $2::jsonb', [['a'], '"x"']],
    [
      'meta__a__gt',
      '5',
      `(CASE WHEN jsonb_typeof(("meta" #> $1::text[])) = 'number' THEN (("meta" #> $1::text[]))::numeric END) > $2::numeric`,
      [['a'], 5],
    ],
    [
      'meta__a__gte',
      'm',
      `(CASE WHEN jsonb_typeof(("meta" #> $1::text[])) = 'string' THEN ("meta" #>> $1::text[]) END) >= $2::text`,
      [['a'], 'm'],
    ],
    [
      'meta__a__between',
      '1,3',
      `(CASE WHEN jsonb_typeof(("meta" #> $1::text[])) = 'number' THEN (("meta" #> $1::text[]))::numeric END) BETWEEN $2::numeric AND $3::numeric`,
      [['a'], 1, 3],
    ],
    ['meta__a__icontains', 'X', 'strpos(lower(("meta" #>> $1::text[])), lower($2::text)) > 0', [['a'], 'X']],
    ['meta__a__in', 'x,y', '("meta" #>> $1::text[]) = ANY($2::text[])', [['a'], ['x', 'y']]],
    ['meta__a__contains', '{"b":1}', '("meta" #> $1::text[]) @> $2::jsonb', [['a'], '{"b":1}']],
    ['meta__a__contained_by', '[1,2]', '("meta" #> $1::text[]) <@ $2::jsonb', [['a'], '[1,2]']],
    ['meta__a__has_key', 'b', '("meta" #> $1::text[]) ? $2::text', [['a'], 'b']],
    ['meta__a__has_any_keys', 'b,c', '("meta" #> $1::text[]) ?| $2::text[]', [['a'], ['b', 'c']]],
    ['meta__a__has_all_keys', 'b,c', '("meta" #> $1::text[]) ?& $2::text[]', [['a'], ['b', 'c']]],
    ['meta__a__null', 'true', `nullif(("meta" #> $1::text[]), 'null'::jsonb) IS NULL`, [['a']]],
    ['extra__x__y__z', '"q"', '("extra" #> $1::text[]) = $2::jsonb', [['x', 'y', 'z'], '"q"']],
  ];
  it.each(cases)('%s=%p', (key, value, text, values) => {
    expect(sql([[key, value]])).toEqual({ text, values });
  });
});

describe('filter SQL: jsonb provider', () => {
  const cases: Array<[string, unknown, string]> = [
    ['title', 'a', `("data"->>'title') = $2::text`],
    ['views__gte', '3', `("data"->>'views')::bigint >= $2::bigint`],
    ['created_at__lt', '2026-01-01', `("data"->>'created_at')::timestamptz < $2::timestamptz`],
    ['ref', '6f9619ff-8b86-d011-b42d-00c04fc964ff', `("data"->>'ref')::uuid = $2::uuid`],
    ['title__icontains', 'a', `strpos(lower(("data"->>'title')), lower($2::text)) > 0`],
    ['meta__contains', '{"a":1}', `"data"->'meta' @> $2::jsonb`],
    ['meta__a__b', '1', `("data"->'meta' #> $2::text[]) = $3::jsonb`],
    ['meta__has_key', 'k', `"data"->'meta' ? $2::text`],
  ];
  it.each(cases)('%s=%p', (key, value, text) => {
    const out = sql([[key, value]], store);
    expect(out.text).toBe(`"table_id" = $1 AND ${text}`);
    expect(out.values[0]).toBe(7);
  });

  it('always selects the table and handles soft delete on data', () => {
    expect(sql([], store, 'exclude').text).toBe(`"table_id" = $1 AND coalesce(("data"->>'is_deleted')::boolean, false) = false`);
    const params = new Params();
    expect(buildWhere(store, { conditions: [] }, params, { deleted: 'only', alias: 's' })).toBe(
      `"s"."table_id" = $1 AND coalesce(("s"."data"->>'is_deleted')::boolean, false) = true`,
    );
  });
});

describe('filter errors name the parameter', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['nope', 'x', /Unknown field "nope"/],
    ['nope__gt', 'x', /Unknown field "nope"/],
    ['title__foo', 'x', /Unknown operator "foo"/],
    ['views__a__b', '1', /no nested values/],
    ['title__', 'x', /Empty segment/],
    ['__gt', 'x', /Empty segment/],
    ['author.name__eq', 'x', /Relationship filters \(dot notation\) are not supported here/],
    ['views', 'abc', /not an integer/],
    ['views', '1.5', /not an integer/],
    ['views', '99999999999999999999', /not an integer/],
    ['views', '9999999999999999999', /out of range/],
    ['views', 1.5, /Expected an integer/],
    ['score', 'NaN', /finite number/],
    ['score', 'Infinity', /finite number/],
    ['score', '1e400', /finite number/],
    ['published', 'yes', /true or false/],
    ['day', '2026-02-30', /date/],
    ['day', "2026-01-01'; DROP TABLE x; --", /date/],
    ['at', '25:00', /time/],
    ['created_at', 'yesterday', /date-time/],
    ['ref', 'not-a-uuid', /UUID/],
    ['title', 'a\u0000b', /NUL/],
    ['title', { a: 1 }, /Expected a string/],
    ['views__contains', '1', /does not apply to integer/],
    ['published__gt', 'true', /does not apply to boolean/],
    ['title__has_key', 'a', /does not apply to string/],
    ['title__contained_by', 'a', /does not apply/],
    ['meta__gt', '1', /does not apply to object/],
    ['tags__has_key', 'a', /does not apply to array/],
    ['meta__icontains', 'a', /does not apply/],
    ['views__between', '1', /two values/],
    ['views__between', '1,2,3', /two values/],
    ['meta__a__between', '1', /two values/],
    ['title__null', 'maybe', /true or false/],
    ['views__gt', null, /value is required/],
    ['meta__contains', '{"a":"\\u0000"}', /NUL/],
    ['meta__contains', '['.repeat(40) + ']'.repeat(40), /deeper/],
    ['meta__a\u0000b', '1', /NUL/],
  ];
  it.each(cases)('%s=%p', (key, value, message) => {
    const [param, text] = badParam([[key, value]]);
    expect(param).toBe(key);
    expect(text).toMatch(message);
  });

  it('a field named like a reserved parameter is filtered with __eq', () => {
    expect(sql([['page__eq', '2']]).text).toBe('"page" = $1::bigint');
  });
});
