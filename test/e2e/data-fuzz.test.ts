// Hostile filter keys and values against a record list (issue 4 item 7): quotes, comments,
// `;`, unicode (NUL, RTL, emoji), huge numbers, NaN/Infinity, deep JSON in `filter`, very
// long strings, operators on the wrong types, odd ordering/search/page values. Every answer
// must be 2xx or 4xx in the data envelope, never show the canary table's marker, and the
// database must be untouched. Valid but unusual combinations of filters, ordering and paging
// are checked against answers computed here from the rows. The seed is random per run and
// printed (test/support/fuzz-seed.ts), so a failure can be replayed.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { CASES, resource, ROWS } from '../integration/data-query-cases.js';
import { fuzzSeed, prng } from '../support/fuzz-seed.js';

/** What the canary table holds; no answer about another table may ever contain it. */
const MARKER = 'canary-7c1e-marker';

const HOST = 'fuzz.query.test';
const SCHEMA = 'fuzz_shop';
let t: TestApp;
let token: string;

const SEED = fuzzSeed('data-fuzz');
const rand = prng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

const FIELDS = resource.schema.fields.map((f) => f.name);
const OPS = [
  '',
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'nbetween',
  'in',
  'nin',
  'ins',
  'ina',
  'nina',
  'contains',
  'containss',
  'ncontains',
  'icontains',
  'nicontains',
  'startswith',
  'startswiths',
  'nstartswith',
  'istartswith',
  'endswith',
  'endswiths',
  'nendswith',
  'iendswith',
  'null',
  'nnull',
  'contained_by',
  'has_key',
  'has_any_keys',
  'has_all_keys',
  'like',
  'regex',
  'exec',
  '"',
  ';',
  'gt;--',
];
const HOSTILE = [
  "'",
  '"',
  "''",
  "' OR '1'='1",
  '1; DROP TABLE fuzz_shop.shop_posts; --',
  "1' ; DELETE FROM datatables; --",
  '--',
  '/* */',
  '/*',
  '*/',
  ';',
  ');',
  "'); TRUNCATE canary; --",
  '\\',
  '\\x00',
  '\u0000',
  'a\u0000b',
  '\u202e',
  '\u202egnp.exe',
  '😀',
  '👩‍👩‍👧‍👦',
  '\uFEFF',
  '\uD800',
  'ǅ',
  'İ',
  'ß',
  'ﬀ',
  '%',
  '_',
  '%_%',
  '\\%',
  '$1',
  '$$',
  '$tag$',
  '::text',
  '::jsonb',
  'NULL',
  'null',
  'true',
  'TRUE',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
  '1e309',
  '-1e400',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '99999999999999999999999999',
  '0x10',
  '1_000',
  '١٢٣',
  '1,2,3',
  ',',
  ',,,',
  '1,',
  '2026-02-30',
  '0000-01-01',
  '9999-12-31',
  '275760-09-13',
  '2026-01-01T25:00:00Z',
  '24:00:00',
  '23:59:60',
  'allballs',
  'epoch',
  'now',
  'infinity',
  '6f9619ff-8b86-d011-b42d-00c04fc964ff',
  '6f9619ff8b86d011b42d00c04fc964ff',
  '{}',
  '[]',
  '{"a":',
  '{"a":1}',
  '[1,[2,[3]]]',
  '{"\\u0000":1}',
  '"\\u0000"',
  '{"a":"\\ud800"}',
  'a'.repeat(5000),
  'x'.repeat(70000),
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '../../etc/passwd',
  '\r\n',
  '\t',
  ' ',
  '',
  'pg_sleep(10)',
  '1) OR pg_sleep(5) IS NULL --',
  "a' || (SELECT current_user) || '",
  "E'\\\\'",
  'U&"\\0000"',
];
function deep(n: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < n; i++) v = rand() < 0.5 ? [v] : { a: v };
  return v;
}

function hostileKey(): string {
  const f = pick(FIELDS);
  switch (Math.floor(rand() * 8)) {
    case 0:
      return f + pick(HOSTILE);
    case 1:
      return `${f}__${pick(OPS)}${pick(HOSTILE)}`;
    case 2:
      return `meta__${pick(HOSTILE)}__${pick(OPS)}`;
    case 3:
      return `${pick(HOSTILE)}__${pick(OPS)}`;
    case 4:
      return `${f}.${pick(FIELDS)}__${pick(OPS)}`;
    case 5:
      return `${f}${'__'.repeat(1 + Math.floor(rand() * 4))}${pick(OPS)}`;
    case 6:
      return `${f}_${pick(OPS)}`;
    default:
      return `extra__${pick(FIELDS)}__${pick(FIELDS)}__${pick(OPS)}`;
  }
}

function hostileValue(): string {
  switch (Math.floor(rand() * 6)) {
    case 0:
      return JSON.stringify(deep(1 + Math.floor(rand() * 60), pick(HOSTILE)));
    case 1:
      return `${pick(HOSTILE)},${pick(HOSTILE)}`;
    case 2:
      return pick(HOSTILE) + pick(HOSTILE);
    default:
      return pick(HOSTILE);
  }
}

function hostileFilter(): string {
  const obj: Record<string, unknown> = {};
  for (let i = 0; i < 1 + Math.floor(rand() * 3); i++) {
    const k = rand() < 0.5 ? hostileKey() : `${pick(FIELDS)}__${pick(OPS)}`;
    obj[k] = pick<unknown>([
      hostileValue(),
      deep(1 + Math.floor(rand() * 80)),
      1e308,
      -0,
      [pick(HOSTILE), 1, null],
      null,
      true,
      { $gt: 1 },
      Number('12345678901234567890'),
    ]);
  }
  return rand() < 0.1 ? pick(['{', 'NaN', '[1]', 'null', '"x"', JSON.stringify(deep(500))]) : JSON.stringify(obj);
}

/** encodeURIComponent, with a lone surrogate sent as the invalid UTF-8 bytes it would be. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, '')) + '%ED%A0%80';
  }
}

const RESERVED = [
  'ordering',
  '_sort',
  '_order',
  'search',
  'page',
  'page_size',
  'limit',
  'offset',
  '_start',
  '_end',
  'include_deleted',
  'only_deleted',
];

/** One request's query string: 1–3 hostile parameters, sometimes with valid ones. */
function hostileQuery(): string {
  const parts: string[] = [];
  const n = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < n; i++) {
    const r = rand();
    let key: string, value: string;
    if (r < 0.3) [key, value] = [hostileKey(), hostileValue()];
    else if (r < 0.6) [key, value] = [`${pick(FIELDS)}${pick(['__', '_'])}${pick(OPS)}`, hostileValue()];
    else if (r < 0.75) [key, value] = ['filter', hostileFilter()];
    else
      [key, value] = [
        pick(RESERVED),
        rand() < 0.5 ? hostileValue() : pick(['-' + pick(FIELDS), `${pick(FIELDS)},-${pick(HOSTILE)}`, '"a" -b or', '-1', '1e3']),
      ];
    parts.push(`${enc(key)}=${enc(value)}`);
  }
  return parts.join('&');
}

async function snapshot(): Promise<unknown> {
  const q = async (sql: string, p: unknown[] = []) => (await t.platform.pool.query(sql, p)).rows;
  const tables = (await q('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [SCHEMA])).map(
    (r) => r.table_name,
  );
  const sums: Record<string, unknown> = {};
  for (const name of tables) {
    const [row] = await q(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS sum FROM "${SCHEMA}"."${name}" x`,
    );
    sums[name] = row;
  }
  const catalogue = await q('SELECT name, version, md5(schema::text) AS s FROM datatables ORDER BY name');
  const schemas = await q(`SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' ORDER BY 1`);
  return { tables, sums, catalogue, schemas };
}

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createUser();
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'fuzz-org', owner.id);
  const site = await insertSite(t.platform, org.id, 'fuzz-shop', HOST);
  await insertApp(t.platform, site.id, 'shop');
  const call = (url: string, body: unknown) => t.call('POST', url, { token, host: HOST, body });
  const made = await call('/api/apps/shop/datatables/create_schema/', {
    resources: [
      resource,
      { ...resource, name: 'notes', provider: 'jsonb' },
      { name: 'canary', schema: { fields: [{ name: 'secret', type: 'string' }] } },
    ],
  });
  if (made.status !== 201) throw new Error(`create_schema: ${made.status} ${made.text}`);
  for (const table of ['posts', 'notes']) expect((await call(`/api/apps/shop/datatables/${table}/data/`, ROWS)).status).toBe(201);
  expect((await call('/api/apps/shop/datatables/canary/data/', [{ secret: `${MARKER}-1` }, { secret: `${MARKER}-2` }])).status).toBe(201);
}, 60_000);
afterAll(() => t?.close());

it('1,200 hostile queries: only 2xx/4xx in the data envelope, database untouched', async () => {
  const before = await snapshot();
  const seen = { ok: 0, client: 0 };
  for (let i = 0; i < 1200; i++) {
    const table = i % 2 === 0 ? 'posts' : 'notes';
    const url = `/api/apps/shop/datatables/${table}/data/?${hostileQuery()}`;
    if (process.env.FUZZ_DEBUG) process.stderr.write(`#${i} ${url.slice(0, 200)}\n`);
    const res = await t.call('GET', url, { token, host: HOST });
    if (res.status >= 500 || res.status < 200) throw new Error(`#${i} ${url.slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`);
    if (res.text.includes(MARKER)) throw new Error(`#${i} ${url.slice(0, 300)} showed the canary table's rows`);
    if (res.status < 300) {
      seen.ok++;
      expect(Array.isArray(res.body.data)).toBe(true);
    } else {
      seen.client++;
      if (process.env.FUZZ_DEBUG) process.stderr.write(`= ${res.status} ${JSON.stringify(res.body).slice(0, 160)}\n`);
      expect(typeof res.body.error).toBe('string');
      expect(res.body.details !== undefined || res.body.detail !== undefined).toBe(true);
    }
  }
  if (process.env.FUZZ_DEBUG) process.stderr.write(`seen ${JSON.stringify(seen)}\n`);
  expect(seen.ok).toBeGreaterThan(50);
  expect(seen.client).toBeGreaterThan(500);
  expect(await snapshot()).toEqual(before);
}, 120_000);

it('hostile ids and searches on single reads answer 2xx/4xx', async () => {
  for (let i = 0; i < 200; i++) {
    const id = enc(hostileValue().slice(0, 2000) || 'x');
    const res = await t.call('GET', `/api/apps/shop/datatables/${i % 2 ? 'posts' : 'notes'}/data/${id}/`, { token, host: HOST });
    expect(res.status).toBeLessThan(500);
    expect(res.text).not.toContain(MARKER);
  }
});

/** The field a query key filters on (the longest field name it starts with). */
const FIELD_NAMES = [...FIELDS].sort((a, b) => b.length - a.length);
const fieldOf = (key: string) => FIELD_NAMES.find((f) => key === f || key.startsWith(`${f}_`)) ?? key;

it('400 valid but unusual queries answer what the rows say: AND of filters, ordering, paging, total', async () => {
  let checked = 0;
  for (let i = 0; i < 400; i++) {
    // One to three filters on distinct fields, each with a known answer; their AND is the intersection.
    const chosen: Array<[Record<string, string>, number[]]> = [];
    for (const c of Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(CASES))) {
      const fields = Object.keys(c[0]).map(fieldOf);
      if (chosen.some(([q]) => Object.keys(q).some((k) => fields.includes(fieldOf(k))))) continue;
      chosen.push(c);
    }
    // Soft-deleted rows count only when asked for (the known answers include them).
    const withDeleted = rand() < 0.5;
    const expected = ROWS.filter((r) => withDeleted || !r.is_deleted)
      .map((r) => r.id as number)
      .filter((id) => chosen.every(([, ids]) => ids.includes(id)))
      .sort((a, b) => a - b);
    const desc = rand() < 0.5;
    if (desc) expected.reverse();
    const pageSize = 1 + Math.floor(rand() * 4);
    const page = 1 + Math.floor(rand() * 3);
    const params = new URLSearchParams();
    for (const [q] of chosen) for (const [k, v] of Object.entries(q)) params.set(k, v);
    if (withDeleted) params.set('include_deleted', 'true');
    params.set('ordering', desc ? '-id' : 'id');
    params.set('page_size', String(pageSize));
    params.set('page', String(page));
    const table = i % 2 === 0 ? 'posts' : 'notes';
    const url = `/api/apps/shop/datatables/${table}/data/?${params}`;
    const res = await t.call('GET', url, { token, host: HOST });
    const want = expected.slice((page - 1) * pageSize, page * pageSize);
    const context = `seed ${SEED}, #${i} ${url}`;
    if (want.length === 0 && res.status === 404) continue; // a page past the end
    expect({ context, status: res.status }).toEqual({ context, status: 200 });
    expect({ context, ids: res.body.data.map((r: { id: number }) => r.id), total: res.body.total }).toEqual({
      context,
      ids: want,
      total: expected.length,
    });
    expect(res.text).not.toContain(MARKER);
    checked++;
  }
  expect(checked).toBeGreaterThan(200);
}, 120_000);
