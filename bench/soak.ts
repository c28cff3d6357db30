// `npm run bench -- --soak MINUTES [--rate N]`: a steady mix of reads and writes from several
// tenants, REST and GraphQL, at a fixed rate, for MINUTES minutes. Prints one line per minute:
// requests, errors (non-2xx, socket errors, time-outs), p50/p99 latency, the process's RSS (the
// platform and the load generator's worker thread share the process) and the heap still in use
// after a full garbage collection. Without --rate it first measures the mix's peak for 10 s and
// runs at half of it. Targets: zero errors, and memory that stops growing (docs:
// bench/RESULTS.md "Soak").
import http from 'node:http';
import autocannon from 'autocannon';
import { signAccessToken } from '../subgraphs/auth/jwt.service.js';
import type { BenchEnv, Request } from './bench-types.js';

const TENANTS = 4;

function call(env: BenchEnv, host: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host, authorization: `Bearer ${env.token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const r = http.request(env.base + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    r.on('error', reject);
    r.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function must(p: Promise<{ status: number; json: any }>, what: string) {
  const res = await p;
  if (res.status >= 300) throw new Error(`soak set-up, ${what}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
  return res.json;
}

/** One tenant made as a client would: organization, site (with its host), app, table with rows, a secret. */
async function tenant(env: BenchEnv, i: number): Promise<Request[]> {
  const platformHost = 'localhost';
  const org = await must(call(env, platformHost, 'POST', '/api/organizations/', { name: `Soak ${i} ${Date.now()}` }), 'organization');
  const site = await must(call(env, platformHost, 'POST', `/api/organizations/${org.slug}/sites/`, { name: `Soak site ${i}` }), 'site');
  const host = site.primary_domain ?? `${site.slug}.localhost`;
  const app = await must(call(env, host, 'POST', '/api/apps/', { name: 'Soak app' }), 'app');
  const table = {
    name: 'notes',
    schema: {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'title', type: 'string', constraints: { required: true, maxLength: 200 } },
        { name: 'views', type: 'integer' },
      ],
      primaryKey: 'id',
    },
  };
  await must(call(env, host, 'POST', `/api/apps/${app.slug}/datatables/create_schema/`, { resources: [table] }), 'table');
  const rows = Array.from({ length: 200 }, (_, n) => ({ title: `note ${n}`, views: n }));
  const created = await must(call(env, host, 'POST', `/api/apps/${app.slug}/datatables/notes/data/`, rows), 'rows');
  const id = created.data[100].id;
  const writeId = created.data[150].id;
  const gqlWriteId = created.data[160].id;
  await must(
    call(env, host, 'POST', '/api/secrets/', { secret_type: 'basic-auth', key: 'soak', value: { username: 'u', password: 'soak-pass' } }),
    'secret',
  );
  const headers = { host, authorization: `Bearer ${env.token}`, 'content-type': 'application/json' };
  const gql = (query: string, variables: Record<string, unknown>): Request => ({
    method: 'POST',
    url: '/graphql',
    headers,
    body: { query, variables },
  });
  const data = `/api/apps/${app.slug}/datatables/notes/data/`;
  return [
    { method: 'GET', url: `${data}${id}/`, headers },
    { method: 'GET', url: `${data}?views__gte=50&ordering=-views&page_size=25`, headers },
    // A write that keeps the table's size: inserts would grow it by thousands of rows a minute,
    // and the lists' exact totals (a count over the table) would slow down with it, hiding
    // whether the platform itself holds up. (First soak, 2026-11-25: bench/RESULTS.md "Soak".)
    { method: 'PATCH', url: `${data}${writeId}/`, headers, body: { title: 'soak write', views: 1 } },
    gql('query Q($app: String!) { records(app: $app, table: "notes", pageSize: 25, sort: ["-views"]) { total items { id data } } }', {
      app: app.slug,
    }),
    gql(
      'mutation M($app: String!, $id: ID!) { updateRecord(app: $app, table: "notes", id: $id, data: {title: "soak gql", views: 2}) { id } }',
      {
        app: app.slug,
        id: gqlWriteId,
      },
    ),
    { method: 'GET', url: '/api/secrets/soak/', headers },
  ];
}

interface MinuteResult {
  requests: number;
  errors: number;
  p50: number;
  p99: number;
}

async function drive(env: BenchEnv, requests: Request[], seconds: number, rate?: number): Promise<MinuteResult> {
  const result = await autocannon({
    url: env.base,
    connections: 10,
    duration: seconds,
    workers: 1,
    ...(rate ? { overallRate: rate } : {}),
    requests: requests.map((r) => ({
      method: r.method,
      path: r.url,
      headers: r.headers,
      body: r.body === undefined ? undefined : JSON.stringify(r.body),
    })),
  });
  return {
    requests: result.requests.total,
    errors: result.non2xx + result.errors + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

/**
 * The requests with a newly signed access token, as a client refreshes it: a soak outlives the
 * token's lifetime (JWT_ACCESS_TTL, 15 min), and every request would answer 401 after it.
 */
const withFreshToken = (env: BenchEnv, reqs: Request[]): Request[] => {
  const authorization = `Bearer ${signAccessToken(env.platform, env.user)}`;
  return reqs.map((r) => ({ ...r, headers: { ...r.headers, authorization } }));
};

export async function soak(env: BenchEnv, minutes: number, rate?: number): Promise<void> {
  const requests: Request[] = [];
  for (let i = 0; i < TENANTS; i++) requests.push(...(await tenant(env, i)));
  // Interleave tenants so every connection's cycle touches each of them.
  const mixed = requests
    .map((r, i) => ({ r, k: (i % 6) * TENANTS + Math.floor(i / 6) }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.r);
  let target = rate;
  if (!target) {
    const peak = await drive(env, withFreshToken(env, mixed), 10);
    target = Math.max(1, Math.round(peak.requests / 10 / 2));
    process.stdout.write(
      `# peak of the mix: ${(peak.requests / 10).toFixed(0)} req/s (${peak.errors} errors); soaking at ${target} req/s\n`,
    );
  }
  process.stdout.write(`# ${minutes} min at ${target} req/s, ${TENANTS} tenants, ${mixed.length} request kinds, 10 connections\n`);
  // RSS swings with garbage collection; the heap still in use after a full collection (when
  // node runs with --expose-gc, as `npm run bench` does) shows whether live data grows.
  const gc = (globalThis as { gc?: () => void }).gc;
  process.stdout.write('minute  requests  errors  p50 ms  p99 ms  rss MiB  live heap MiB\n');
  for (let m = 1; m <= minutes; m++) {
    const r = await drive(env, withFreshToken(env, mixed), 60, target);
    const rss = process.memoryUsage().rss / 1024 / 1024;
    let live = '-';
    if (gc) {
      gc();
      live = (process.memoryUsage().heapUsed / 1024 / 1024).toFixed(1);
    }
    process.stdout.write(
      `${String(m).padStart(6)}  ${String(r.requests).padStart(8)}  ${String(r.errors).padStart(6)}  ${r.p50.toFixed(1).padStart(6)}  ${r.p99
        .toFixed(1)
        .padStart(6)}  ${rss.toFixed(0).padStart(7)}  ${live.padStart(13)}\n`,
    );
  }
}
