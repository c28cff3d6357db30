// Hostile record writes (issue 4 items 3 and 7, for the write side): 1,200 requests with
// hostile keys, ids, unique_fields, filters and values (quotes, comments, `;`, NUL, unicode,
// huge numbers, deep JSON) on both providers. Only 2xx/4xx answers; the database outside the
// target tables is untouched.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { fuzzSeed } from '../support/fuzz-seed.js';

/** What the canary table holds; no answer about another table may ever contain it. */
const CANARY = 'canary-91d4-marker';

const HOST = 'shop.fuzzw.test';
let t: TestApp;
let token: string;

const deep = (n: number): unknown => (n === 0 ? 1 : { a: deep(n - 1) });
const deepArray = (n: number): unknown => (n === 0 ? [] : [deepArray(n - 1)]);

const STRINGS = [
  "'",
  '"',
  '\'; DROP TABLE fuzz."web_canary"; --',
  '/* comment */',
  '--',
  ';',
  '\\',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '😀'.repeat(50),
  'ß',
  'İ',
  '%',
  '_',
  '$1',
  '?',
  '{}',
  '[]',
  '{"a":1}',
  'null',
  'true',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  ' ',
  '',
  'x'.repeat(10_000),
  'title',
  'id',
  'is_deleted',
  'search_vector',
  'data',
  'table_id',
  'record_id',
  'views__gte',
  'meta__a__b',
  'a.b',
  'tags__contains',
  '2026-13-45',
  '2026-02-30T25:61:00Z',
  '99999-01-01',
  '00000000-0000-0000-0000-000000000000',
  'ZZZZZZZZ-0000-4000-8000-000000000000',
];
const VALUES: unknown[] = [
  ...STRINGS,
  0,
  -1,
  1.5,
  2 ** 53 + 1,
  1e308,
  -1e308,
  2 ** 63,
  -(2 ** 63),
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  true,
  false,
  null,
  [],
  [null],
  [1, 'a', { b: [] }],
  {},
  { "'": "'" },
  { '\u0000': 1 },
  deep(60),
  deep(300),
  deepArray(200),
];

/** URL-encoded; a lone surrogate (not encodable) is sent as the invalid UTF-8 it would be. */
const enc = (v: string) => {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80';
  }
};

let seed = fuzzSeed('data-records-fuzz') & 0x7fffffff;
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const pick = <T>(list: readonly T[]): T => list[rnd(list.length)];

/** Valid types, hostile content: these reach the database. */
function typedBody(): Record<string, unknown> {
  const objects = VALUES.filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
  const arrays = VALUES.filter(Array.isArray);
  return {
    title: pick(STRINGS).slice(0, 5000),
    code: pick(STRINGS) + rnd(1_000_000),
    views: pick([0, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 63]),
    score: pick([0, 1.5, 1e308, -1e308, Number.MIN_VALUE]),
    meta: pick(objects),
    tags: pick(arrays),
    flag: rnd(2) === 0,
    day: pick(['2026-01-01', '0001-01-01', '9999-12-31']),
    at: pick(['2026-01-02T03:04:05Z', '0001-01-01T00:00:00+14:00', '9999-12-31T23:59:59.999999Z']),
  };
}

function hostileBody(): Record<string, unknown> {
  if (rnd(2) === 0) return typedBody();
  const body: Record<string, unknown> = {};
  const n = 1 + rnd(4);
  for (let i = 0; i < n; i++)
    body[rnd(2) ? pick(['title', 'views', 'score', 'day', 'at', 'meta', 'tags', 'flag', 'code', 'is_deleted']) : pick(STRINGS)] =
      pick(VALUES);
  return body;
}

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createUser();
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'acme-fuzzw', owner.id);
  const site = await insertSite(t.platform, org.id, 'fuzz', HOST);
  await insertApp(t.platform, site.id, 'web');
  const fields = [
    { name: 'title', type: 'string', constraints: { maxLength: 5000 } },
    { name: 'views', type: 'integer' },
    { name: 'score', type: 'number' },
    { name: 'day', type: 'date' },
    { name: 'at', type: 'datetime' },
    { name: 'meta', type: 'object' },
    { name: 'tags', type: 'array' },
    { name: 'flag', type: 'boolean' },
    { name: 'code', type: 'string', constraints: { unique: true } },
    { name: 'is_deleted', type: 'boolean' },
  ];
  const res = await t.call('POST', '/api/apps/web/datatables/create_schema/', {
    token,
    host: HOST,
    body: {
      resources: [
        { name: 'things', schema: { fields } },
        { name: 'docs', provider: 'jsonb', schema: { fields } },
        {
          name: 'ints',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'v', type: 'string' },
            ],
            primaryKey: 'id',
          },
        },
        { name: 'canary', schema: { fields: [{ name: 'v', type: 'string' }] } },
      ],
    },
  });
  expect(res.status).toBe(201);
  expect(
    (
      await t.call('POST', '/api/apps/web/datatables/canary/data/', {
        token,
        host: HOST,
        body: [{ v: `${CANARY}-1` }, { v: `${CANARY}-2` }],
      })
    ).status,
  ).toBe(201);
});
afterAll(() => t.close());

test('1,200 hostile writes answer 2xx/4xx only and leave other tables untouched', async () => {
  const snapshot = async () => ({
    canary: (await t.platform.pool.query('SELECT v FROM fuzz."web_canary" ORDER BY v')).rows,
    tables: (await t.platform.pool.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'fuzz'`)).rows[0].n,
    catalogue: (await t.platform.pool.query('SELECT name, version FROM datatables ORDER BY name')).rows,
  });
  const before = await snapshot();
  const failures: string[] = [];
  const statuses: Record<number, number> = {};
  let readBack = 0;
  for (let i = 0; i < 1200; i++) {
    const table = pick(['things', 'docs', 'ints']);
    const base = `/api/apps/web/datatables/${table}/data/`;
    const id = enc(String(pick(VALUES)).slice(0, 200));
    const filter = enc(JSON.stringify({ [pick(STRINGS)]: pick(VALUES) }));
    const kind = i % 8;
    const [method, url, body] = [
      ['POST', base, hostileBody()],
      ['POST', base, [hostileBody(), hostileBody()]],
      ['PATCH', `${base}${id}/`, hostileBody()],
      ['PATCH', `${base}?${enc(pick(STRINGS))}=${id}`, hostileBody()],
      ['PATCH', base, [{ ...hostileBody(), id: pick(VALUES) }]],
      ['DELETE', `${base}?ids=${id},${enc(pick(STRINGS))}&hard_delete=${pick(['true', 'x', "'"])}`, undefined],
      ['DELETE', `${base}?filter=${rnd(4) ? filter : enc(pick(STRINGS))}`, undefined],
      ['POST', `${base}upsert/?unique_fields=${enc(pick(['code', 'id', 'title', ...STRINGS]))}`, rnd(2) ? hostileBody() : [hostileBody()]],
    ][kind] as [string, string, unknown];
    const res = await t.call(method, url, { token, host: HOST, body });
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.text.includes(CANARY)) failures.push(`${method} ${url.slice(0, 160)} showed the canary table's rows`);
    if (kind === 0 && res.status === 201) {
      // A write that was accepted reads back exactly as its answer showed it.
      const written = res.body.data;
      const again = await t.call('GET', `${base}${enc(String(written.id))}/`, { token, host: HOST });
      if (again.status !== 200 || JSON.stringify(again.body.data) !== JSON.stringify(written))
        failures.push(
          `read-back of ${table} ${written.id}: wrote ${JSON.stringify(written).slice(0, 200)}, read ${again.text.slice(0, 200)}`,
        );
      else readBack++;
    }
    if (res.status >= 500 || res.status < 200)
      failures.push(`${res.status} ${method} ${url.slice(0, 160)} ${JSON.stringify(body)?.slice(0, 120)} → ${res.text.slice(0, 200)}`);
  }
  expect(failures.slice(0, 10)).toEqual([]);
  expect(readBack).toBeGreaterThan(10);
  // Not everything bounced off validation: hostile values that are valid data were written.
  expect((statuses[200] ?? 0) + (statuses[201] ?? 0)).toBeGreaterThan(50);
  expect(await snapshot()).toEqual(before);
}, 120_000);
