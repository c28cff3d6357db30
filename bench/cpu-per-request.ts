// CPU time of the process per request, for one benchmark of `npm run bench`: the platform's
// request, the REST route for the same read when the benchmark has one (GraphQL `record(id)`
// against REST, issue 11 item 1), and the bare side doing the same work; optionally CPU
// profiles of each side. Less noisy than
// req/s on a shared machine: the load comes from a separate process (autocannon, a fixed
// number of requests), and the server's own CPU time (user + system, process.cpuUsage) is
// divided by the requests answered. Sides alternate, so both see the same machine.
//
//   node --no-node-snapshot --import tsx bench/cpu-per-request.ts [--requests 20000] [--rounds 3]
//        [--connections 20] [--profile DIR] [--only gql-get] [--inject]
//
// --only picks the first benchmark whose name contains the text (default gql-get).
//
// --profile DIR writes one .cpuprofile per side and round, for `node --cpu-prof`-style
// reading (Chrome DevTools, speedscope).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { bareServer, benchEnv, listen, sampleRequest, startBenchPlatform } from './bench-platform.js';
import type { Request } from './bench-types.js';
import { BENCHMARKS } from './benchmarks.js';

/** The load generator: a child process running autocannon for a fixed number of requests. */
const CLIENT = `
import autocannon from 'autocannon';
const o = JSON.parse(process.argv[1]);
const r = await autocannon(o);
process.stdout.write(JSON.stringify({ total: r.requests.total, bad: r.non2xx + r.errors + r.timeouts }));
`;

function load(base: string, req: Request, amount: number, connections: number): Promise<{ total: number; bad: number }> {
  const body = req.body !== undefined ? JSON.stringify(req.body) : undefined;
  const o = {
    url: base + req.url,
    method: req.method,
    headers: { ...req.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body,
    amount,
    connections,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CLIENT, JSON.stringify(o)], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`))));
  });
}

/**
 * --inject: the requests go through Fastify's inject (no sockets on the client side), `connections`
 * at a time: the platform's JavaScript without the kernel's share, steadier on a loaded machine.
 */
async function injectLoad(
  app: FastifyInstance,
  req: Request,
  amount: number,
  connections: number,
): Promise<{ total: number; bad: number }> {
  let sent = 0;
  let bad = 0;
  const payload = req.body !== undefined ? JSON.stringify(req.body) : undefined;
  const headers = { ...req.headers, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) };
  const lane = async () => {
    while (sent < amount) {
      sent++;
      const res = await app.inject({ method: req.method, url: req.url, headers, payload });
      if (res.statusCode >= 300) bad++;
    }
  };
  await Promise.all(Array.from({ length: connections }, lane));
  return { total: amount, bad };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '20000' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '20' },
      profile: { type: 'string' },
      only: { type: 'string', default: 'gql-get' },
      inject: { type: 'boolean', default: false },
    },
  });
  const requests = Number(values.requests);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  const bench = BENCHMARKS.find((b) => b.name.includes(values.only!));
  if (!bench) throw new Error(`no benchmark matches "${values.only}"`);

  const { platform, app, dataDir } = await startBenchPlatform('tenantry-cpu-');
  const base = await listen(app);
  const session = values.profile ? new inspector.Session() : null;
  let bare: FastifyInstance | undefined;
  session?.connect();
  try {
    const env = await benchEnv(platform, base);
    const req = await bench.prepare(env);
    const sides: Array<[string, Request, FastifyInstance, string]> = [['platform', req, app, base]];
    if (bench.rest) sides.push(['rest', await bench.rest(env), app, base]);
    bare = await bareServer(req, await sampleRequest(base, req), bench.bare?.(env));
    sides.push(['bare', req, bare, await listen(bare)]);
    if (process.env.CPU_SHOW) {
      for (const [name, req, , base] of sides) {
        const s = await sampleRequest(base, req);
        process.stdout.write(`${name} ${s.status} ${JSON.stringify(s.raw)} ${s.text}\n`);
      }
    }
    const totals: Record<string, { cpu: number; n: number; bad: number; rounds: number[] }> = {};
    // Warm-up: caches, JIT, the fast path's learned operation.
    for (const [, req, server, base] of sides) {
      if (values.inject) await injectLoad(server, req, Math.min(5000, requests), connections);
      else await load(base, req, Math.min(5000, requests), connections);
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const [name, req, server, base] of order) {
        const profiling = session !== null;
        if (profiling) {
          await session.post('Profiler.enable');
          await session.post('Profiler.setSamplingInterval', { interval: 100 });
          await session.post('Profiler.start');
        }
        const before = process.cpuUsage();
        const r = values.inject ? await injectLoad(server, req, requests, connections) : await load(base, req, requests, connections);
        const used = process.cpuUsage(before);
        if (profiling) {
          const { profile } = await session.post('Profiler.stop');
          fs.mkdirSync(values.profile!, { recursive: true });
          fs.writeFileSync(path.join(values.profile!, `${name}-${round + 1}.cpuprofile`), JSON.stringify(profile));
        }
        const t = (totals[name] ??= { cpu: 0, n: 0, bad: 0, rounds: [] });
        t.cpu += used.user + used.system;
        t.rounds.push((used.user + used.system) / r.total);
        t.n += r.total;
        t.bad += r.bad;
        process.stdout.write(
          `round ${round + 1} ${name.padEnd(8)} ${((used.user + used.system) / r.total).toFixed(1)} CPU-µs/request ` +
            `(user ${(used.user / r.total).toFixed(1)}, system ${(used.system / r.total).toFixed(1)})\n`,
        );
      }
    }
    const per = (name: string) => totals[name].cpu / totals[name].n;
    const median = (name: string) => {
      const v = [...totals[name].rounds].sort((a, b) => a - b);
      return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    };
    const names = sides.map(([name]) => name);
    const bad = names.filter((n) => totals[n].bad).map((n) => `${n} ${totals[n].bad}`);
    process.stdout.write(
      `# ${bench.name}: CPU-µs/request mean ${names.map((n) => `${n} ${per(n).toFixed(1)}`).join(', ')}; ` +
        `median ${names.map((n) => `${n} ${median(n).toFixed(1)}`).join(', ')}; ` +
        `platform/bare ${(median('platform') / median('bare')).toFixed(2)}` +
        (bench.rest ? `, platform/rest ${(median('platform') / median('rest')).toFixed(2)}` : '') +
        `; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}` +
        (bad.length ? `; non-2xx/errors: ${bad.join(', ')}` : '') +
        '\n',
    );
  } finally {
    session?.disconnect();
    await bare?.close();
    await app.close();
    await platform.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`cpu-per-request failed: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
