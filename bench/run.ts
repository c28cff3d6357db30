// `npm run bench`: the platform against a bare Fastify server answering the same JSON on the
// same route, one line per benchmark. Benchmarks are entries in BENCHMARKS below.
//
//   npm run bench -- [--duration 10] [--warmup 3] [--connections 20] [--rounds 2] [--only name]
//
// Honest by construction: each round measures both sides, and the order alternates between
// rounds (platform first, then bare first, …), so neither side always gets the warmer machine;
// the line shows the mean of the rounds and every round's ratio. A benchmark with a `cold`
// variant is also run over many distinct requests (many callers, many rows), next to the warm
// line, so caches that only help a repeated request are visible.
//   npm run bench -- --soak MINUTES [--rate N]     (bench/soak.ts)
//
// The platform runs on DATABASE_URL when set, else on an embedded PostgreSQL in a temporary
// directory. Rate limits are off (they would answer 429 within a second); request logs are on,
// written to /dev/null, because every real deployment pays for them.
import fs from 'node:fs';
import os from 'node:os';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { Platform } from '../subgraphs/core/platform.js';
import { soak } from './soak.js';
import { bareServer, benchEnv, listen, sampleRequest, startBenchPlatform } from './bench-platform.js';
import { BENCHMARKS } from './benchmarks.js';

import type { Benchmark, BenchEnv, Request } from './bench-types.js';

export type { Benchmark, BenchEnv, Request };

export { BENCHMARKS };

interface Options {
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  only?: string;
  soak?: number;
  rate?: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '2' },
      only: { type: 'string' },
      soak: { type: 'string' },
      rate: { type: 'string' },
    },
  });
  return {
    duration: Number(values.duration),
    warmup: Number(values.warmup),
    connections: Number(values.connections),
    rounds: Math.max(1, Number(values.rounds)),
    only: values.only,
    soak: values.soak === undefined ? undefined : Number(values.soak),
    rate: values.rate === undefined ? undefined : Number(values.rate),
  };
}

/**
 * Load from worker threads, so the load generator does not share the server's event loop
 * (both run in this process; on 2 cores that would halve what the server can do).
 */
async function measure(base: string, reqs: Request[], durationSec: number, connections: number): Promise<{ rps: number; bad: number }> {
  const first = reqs[0];
  const wire = (req: Request) => ({
    method: req.method,
    path: req.url,
    headers: { ...req.headers, ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
  });
  const result = await autocannon({
    url: base + first.url,
    ...wire(first),
    // Several requests: each connection cycles through all of them.
    requests: reqs.length > 1 ? reqs.map(wire) : undefined,
    connections,
    duration: durationSec,
    workers: 1,
  });
  return { rps: result.requests.average, bad: result.non2xx + result.errors + result.timeouts };
}

async function main(): Promise<void> {
  const opts = options();
  const { platform, app, dataDir } = await startBenchPlatform();
  const base = await listen(app);
  try {
    const env = await benchEnv(platform, base);
    if (opts.soak) {
      await soak(env, opts.soak, opts.rate);
      return;
    }
    const selected = BENCHMARKS.filter((b) => !opts.only || b.name.includes(opts.only));
    process.stdout.write(
      `# ${opts.duration}s per side after ${opts.warmup}s warm-up, ${opts.connections} connections, ${os.cpus().length} CPUs, Node ${process.version}\n`,
    );
    for (const bench of selected) process.stdout.write(`${await runOne(bench, env, base, opts)}\n`);
  } finally {
    await app.close();
    await platform.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The first path where two JSON values differ, with both values there; null when equal. */
function firstDifference(platform: unknown, bare: unknown, at = '$'): string | null {
  if (isDeepStrictEqual(platform, bare)) return null;
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 120);
  if (platform && bare && typeof platform === 'object' && typeof bare === 'object' && Array.isArray(platform) === Array.isArray(bare)) {
    const keys = new Set([...Object.keys(platform), ...Object.keys(bare)]);
    for (const k of keys) {
      const d = firstDifference((platform as Record<string, unknown>)[k], (bare as Record<string, unknown>)[k], `${at}.${k}`);
      if (d) return d;
    }
  }
  return `${at}: platform ${show(platform)}, bare ${show(bare)}`;
}

/** What `fn` costs in queries through the platform's pg pool (the data service's path). */
async function countingQueries<T>(platform: Platform, fn: () => Promise<T>): Promise<{ result: T; queries: number }> {
  const pool = platform.pool as unknown as { query: (...args: unknown[]) => unknown };
  const original = pool.query;
  let queries = 0;
  pool.query = (...args: unknown[]) => {
    queries++;
    return original.apply(platform.pool, args);
  };
  try {
    return { result: await fn(), queries };
  } finally {
    pool.query = original;
  }
}

async function runOne(bench: Benchmark, env: BenchEnv, platformBase: string, opts: Options): Promise<string> {
  const req = await bench.prepare(env);
  // The platform's answer: checked for success, and what the bare server returns unless the
  // benchmark gives a bare handler of its own.
  await sampleRequest(platformBase, req); // caches warm: the count below is a warm request's
  const { result: sample, queries } = await countingQueries(env.platform, () => sampleRequest(platformBase, req));
  const text = sample.text;
  if (sample.status >= 400 || /^\{"errors":/.test(text)) {
    throw new Error(`${bench.name}: the platform answered ${sample.status}: ${text.slice(0, 200)}`);
  }
  const bare = await bareServer(req, sample, bench.bare?.(env));
  const bareBase = await listen(bare);
  try {
    const notes: string[] = [];
    if (bench.bare) {
      // Both sides must do the same work: the bare handler's answer is the platform's.
      const bareSample = await sampleRequest(bareBase, req);
      const comparable = (body: string) => {
        const v = JSON.parse(body);
        for (const k of bench.volatile ?? []) if (v && typeof v === 'object') delete v[k];
        return v;
      };
      const difference = firstDifference(comparable(text), comparable(bareSample.text));
      if (difference) notes.push(`#   WARNING: the bare answer differs from the platform's at ${difference}`);
    }
    notes.push(`#   platform queries through the pool for one warm request: ${queries} (Prisma's are not counted)`);
    const lines = [await compare(bench.name, [req], platformBase, bareBase, opts, bench.perRequest), ...notes];
    if (bench.cold)
      lines.push(await compare(`${bench.name} [cold]`, await bench.cold(env), platformBase, bareBase, opts, bench.perRequest));
    if (bench.rest) {
      // The REST route for the same read, against the same bare work: GraphQL/REST = the two ratios divided.
      const restReq = await bench.rest(env);
      const check = await sampleRequest(platformBase, restReq);
      if (check.status >= 400) throw new Error(`${bench.name}: the REST side answered ${check.status}: ${check.text.slice(0, 200)}`);
      // The platform answers the REST request; the bare side the same work as above (its own request).
      lines.push(
        await compare(`${bench.name} [REST]`, { platform: [restReq], bare: [req] }, platformBase, bareBase, opts, bench.perRequest),
      );
    }
    return lines.join('\n');
  } finally {
    await bare.close();
  }
}

/** Both sides, `opts.rounds` rounds, alternating which goes first; one line. */
async function compare(
  name: string,
  reqs: Request[] | { platform: Request[]; bare: Request[] },
  platformBase: string,
  bareBase: string,
  opts: Options,
  perRequest?: number,
): Promise<string> {
  const sides = { platform: { rps: 0, bad: 0 }, bare: { rps: 0, bad: 0 } };
  const ratios: number[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    const order = round % 2 === 0 ? (['platform', 'bare'] as const) : (['bare', 'platform'] as const);
    const got: Record<string, number> = {};
    for (const side of order) {
      const base = side === 'platform' ? platformBase : bareBase;
      const sideReqs = Array.isArray(reqs) ? reqs : reqs[side];
      if (opts.warmup > 0) await measure(base, sideReqs, opts.warmup, opts.connections);
      const m = await measure(base, sideReqs, opts.duration, opts.connections);
      sides[side].rps += m.rps / opts.rounds;
      sides[side].bad += m.bad;
      got[side] = m.rps;
    }
    ratios.push(got.platform / got.bare);
  }
  const p = sides.platform;
  const b = sides.bare;
  const failures = p.bad + b.bad > 0 ? `  (non-2xx/errors: platform ${p.bad}, bare ${b.bad})` : '';
  const items = perRequest ? `  (records/s: platform ${(p.rps * perRequest).toFixed(0)}, bare ${(b.rps * perRequest).toFixed(0)})` : '';
  const spread = `  rounds ${ratios.map((r) => r.toFixed(2)).join('/')}`;
  return `${name.padEnd(32)} platform ${p.rps.toFixed(0).padStart(6)} req/s  bare ${b.rps.toFixed(0).padStart(6)} req/s  ratio ${(p.rps / b.rps).toFixed(2)}${spread}${items}${failures}`;
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
