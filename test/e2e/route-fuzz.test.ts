// Bad input over every route of the REST route table (issue 10 item 5): NUL characters in path
// segments, query parameters and body strings and keys, JSON nested far deeper than the limit,
// numbers outside the double range, bodies of the wrong shape, odd query values. At least
// 2,000 requests as a signed-in superuser on the right host (so handlers run to the end), and
// never a 5xx. The fixed cases also check the answer: 404 for a NUL path segment, 400 naming
// the field for a NUL or out-of-range number, 400 for deep JSON. Seeded PRNG, so a failure
// reproduces.
import { ROUTES } from '../../gateway/rest/route-table.js';
import { mountedPaths, type RouteSpec } from '../../subgraphs/core/rest.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { createTables } from '../support/datatables.js';

const HOST = 'shop.fuzz.test';
const REQUESTS_PER_ROUTE = 22;
let t: TestApp;
let token: string;
let goodParams: Record<string, string>;

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(0x0a11ed);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createUser({ username: 'fuzzowner', isStaff: true, isSuperuser: true });
  await t.createUser({ username: 'victim' });
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'acme', owner.id);
  const site = await insertSite(t.platform, org.id, 'shop', HOST);
  await t.platform.pool.query('CREATE SCHEMA IF NOT EXISTS shop');
  await insertApp(t.platform, site.id, 'store');
  await createTables(t, { host: HOST, token, app: 'store' }, [
    {
      name: 'posts',
      schema: {
        fields: [
          { name: 'title', type: 'string' },
          { name: 'score', type: 'number' },
          { name: 'meta', type: 'object' },
        ],
      },
    },
  ]);
  const secret = await t.call('POST', '/api/secrets/', { host: HOST, token, body: { key: 'k1', value: 'v', secret_type: 'json' } });
  void secret; // best effort: the fuzz works without it
  goodParams = {
    org: 'acme',
    site: 'shop',
    app: 'store',
    name: 'posts',
    user: 'victim',
    group: '1',
    slug: 'json',
    key: 'k1',
    id: '1',
    uuid: '00000000-0000-4000-8000-000000000000',
    token: 'x'.repeat(40),
    domain: 'shop-fuzz-test',
    provider: 'nope',
  };
});
afterAll(() => t.close());

const NUL = '\u0000';
const KEYS = [
  'name',
  'slug',
  'username',
  'email',
  'password',
  'current_password',
  'description',
  'title',
  'domain',
  'key',
  'value',
  'data',
  'params',
  'permissions',
  'site_settings',
  'resources',
  'role',
  'invitee_identifier',
  'refresh',
  'token',
  'user',
  'schema',
  'score',
  'meta',
  'tags',
  'secret_type',
];
const deepJson = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

const WEIRD_VALUES: unknown[] = [
  `a${NUL}b`,
  '',
  ' ',
  'x'.repeat(5000),
  '../../etc/passwd',
  "'; DROP TABLE users; --",
  '\u202e\u{1f600}',
  -1,
  0,
  2 ** 53 + 1,
  1.5,
  true,
  null,
  [],
  [NUL],
  {},
  { [NUL]: 1 },
  { $gt: '' },
];
const RAW_NUMBERS = ['1e400', '-1e400', '1e-400', '123456789012345678901234567890'];
const QUERIES = [
  '',
  '?page=%00',
  '?search=a%00b',
  '?page=1e400',
  '?page_size=-1',
  '?page_size=99999999999999999999',
  '?page=abc&page_size=abc',
  '?ordering=%00',
  '?filter=' + encodeURIComponent(deepJson(200)),
  '?title__in=' + encodeURIComponent('a,b,' + NUL),
  '?include_deleted=maybe',
  '?sort=-' + 'x'.repeat(300),
  '?%00=1',
  '?page[]=1&page[]=2',
];

interface Case {
  url: string;
  payload?: string;
  expect?: { status: number; mentions?: string };
}

const hasBody = (spec: RouteSpec) => spec.method === 'POST' || spec.method === 'PUT' || spec.method === 'PATCH';
const paramNames = (spec: RouteSpec) => [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);

function path(spec: RouteSpec, override: Record<string, string> = {}): string {
  return mountedPaths(spec)[0].replace(/:([A-Za-z_]+)/g, (_, name: string) =>
    name in override ? override[name] : encodeURIComponent(goodParams[name] ?? 'x1'),
  );
}

function casesFor(spec: RouteSpec): Case[] {
  const cases: Case[] = [];
  const params = paramNames(spec);
  // Fixed cases, with the answer they must get.
  for (const p of params) cases.push({ url: path(spec, { [p]: 'a%00b' }), expect: { status: 404 } });
  cases.push({ url: path(spec) + '?q=a%00', expect: { status: 400, mentions: 'q' } });
  if (hasBody(spec)) {
    const key = pick(KEYS);
    cases.push({ url: path(spec), payload: deepJson(10_000), expect: { status: 400 } });
    cases.push({ url: path(spec), payload: deepArray(65), expect: { status: 400 } });
    cases.push({ url: path(spec), payload: `{"${key}": "a\\u0000b"}`, expect: { status: 400, mentions: key } });
    cases.push({ url: path(spec), payload: `{"outer": {"${key}": 1e400}}`, expect: { status: 400, mentions: `outer.${key}` } });
    cases.push({ url: path(spec), payload: `{"list": [1, -1e400]}`, expect: { status: 400, mentions: 'list[1]' } });
    cases.push({ url: path(spec), payload: `{"a\\u0000": 1}`, expect: { status: 400 } });
  }
  // Random cases: no 5xx whatever they get.
  while (cases.length < REQUESTS_PER_ROUTE) {
    const override: Record<string, string> = {};
    for (const p of params) {
      if (rand() < 0.3) override[p] = encodeURIComponent(String(pick(WEIRD_VALUES)).slice(0, 400));
    }
    const url = path(spec, override) + pick(QUERIES);
    if (!hasBody(spec)) {
      cases.push({ url });
      continue;
    }
    const r = rand();
    let payload: string;
    if (r < 0.15) payload = pick(['[]', 'null', '1', '"x"', 'true', '[{}]', deepArray(64), deepJson(63)]);
    else if (r < 0.3) payload = `{"${pick(KEYS)}": ${pick(RAW_NUMBERS)}}`;
    else {
      const body: Record<string, unknown> = {};
      const n = 1 + Math.floor(rand() * 4);
      for (let i = 0; i < n; i++) body[pick(KEYS)] = pick(WEIRD_VALUES);
      payload = JSON.stringify(body);
    }
    cases.push({ url, payload });
  }
  return cases;
}

test('every route of the table: at least 2,000 hostile requests, no 5xx, the documented refusals', async () => {
  // Deletions last, organization and site last of all, so the other routes run against live data.
  const rank = (s: RouteSpec) => (s.method !== 'DELETE' ? 0 : /^\/(organizations|sites)\/:(org|site)\/$/.test(s.path) ? 2 : 1);
  const routes = [...ROUTES].sort((a, b) => rank(a) - rank(b));
  let sent = 0;
  const failures: string[] = [];
  for (const spec of routes) {
    for (const c of casesFor(spec)) {
      const res = await t.app.inject({
        method: spec.method,
        url: c.url,
        headers: {
          host: HOST,
          authorization: `Bearer ${token}`,
          ...(c.payload !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        payload: c.payload,
      });
      sent++;
      const where = `${spec.method} ${c.url.slice(0, 120)} ${c.payload?.slice(0, 80) ?? ''}`;
      if (res.statusCode >= 500) failures.push(`${res.statusCode} ${where}: ${res.body.slice(0, 200)}`);
      // Streamed routes (uploads) take no JSON: there a body is a file's bytes (or refused as
      // 415 on multipart routes), so only "no 5xx" applies to it.
      const bodyIsData = spec.rawBody && c.payload !== undefined;
      if (c.expect && !bodyIsData) {
        if (res.statusCode !== c.expect.status)
          failures.push(`expected ${c.expect.status}, got ${res.statusCode} ${where}: ${res.body.slice(0, 200)}`);
        else if (c.expect.mentions && !res.body.includes(JSON.stringify(c.expect.mentions))) {
          failures.push(`expected the answer to name ${c.expect.mentions}: ${where}: ${res.body.slice(0, 200)}`);
        }
      }
      if (res.statusCode !== 204 && res.body) {
        try {
          JSON.parse(res.body);
        } catch {
          failures.push(`not JSON: ${where}: ${res.body.slice(0, 100)}`);
        }
      }
    }
  }
  expect(failures).toEqual([]);
  expect(sent).toBeGreaterThanOrEqual(2000);
  expect(t.logs.filter((l) => l.includes('unhandled error'))).toEqual([]);
});
