// Resident memory of the production process after the GraphQL benchmark's load (issue 11
// item 2): `npm start`'s command (compiled JavaScript in dist/) runs as its own process on the
// benchmark's table of 100,000 rows; autocannon sends the GraphQL record(id) and page-of-25
// reads and their REST equivalents; then the process's RSS is read from /proc.
//
//   node --import tsx bench/rss.ts [--duration 20] [--connections 20] [--node-flags="--max-semi-space-size=4"]
//
// --node-flags: extra Node options for the server process, to try settings against the
// start command's own.
//
// This process only prepares the data (through its own platform on the same database, and
// the server's API) and generates the load; the figure is the server's alone.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pino from 'pino';
import { signAccessToken } from '../subgraphs/auth/jwt.service.js';
import { loadConfig } from '../subgraphs/core/config.js';
import { freePort } from '../subgraphs/core/embedded-postgres.js';
import { createLogger } from '../subgraphs/core/logger.js';
import { startPlatform } from '../subgraphs/core/platform.js';
import { MODULES } from '../subgraphs/modules.js';
import { hashPassword } from '../subgraphs/tenancy/password.js';
import { userRepository } from '../subgraphs/tenancy/user.repository.js';
import { GRAPHQL_BENCHMARKS } from './graphql.bench.js';
import type { BenchEnv, Request } from './bench-types.js';

const MiB = 1024 * 1024;

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

async function load(base: string, req: Request, durationSec: number, connections: number): Promise<number> {
  const result = await autocannon({
    url: base + req.url,
    method: req.method,
    headers: { ...req.headers, ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
    connections,
    duration: durationSec,
  });
  return result.requests.average;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '20' },
      connections: { type: 'string', default: '20' },
      'node-flags': { type: 'string', default: '' },
    },
  });
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const root = process.cwd();
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-rss-'));
  fs.chmodSync(dataDir, 0o755); // embedded PostgreSQL runs as another OS user when we are root
  const env = { ...process.env, DATA_DIR: dataDir, RATE_LIMIT_STANDARD: 'off', RATE_LIMIT_AUTH: 'off', RATE_LIMIT_WRITE: 'off' };
  const platform = await startPlatform(loadConfig(env), createLogger('warn', pino.destination('/dev/null')), {
    modules: MODULES,
    seed: true,
  });
  const port = await freePort();
  // The command of `npm start` (package.json), on the same database and keys.
  const script: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  const m = /^(?:NODE_OPTIONS="([^"]*)\$NODE_OPTIONS" )?node (.+)$/.exec(script)!;
  const nodeOptions = (m[1] ?? '').trim();
  const start = m[2].split(' ');
  start.splice(start.length - 1, 0, ...values['node-flags']!.split(' ').filter(Boolean));
  const server = spawn(process.execPath, start, {
    cwd: root,
    env: { ...env, NODE_OPTIONS: nodeOptions, DATABASE_URL: platform.databaseUrl, PORT: String(port), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (
        await fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 300 || server.exitCode !== null) throw new Error('the server did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const started = rssOf(server.pid!);
    const user = await userRepository.create(platform.prisma, {
      username: `rss-${Date.now().toString(36)}`,
      email: 'rss@example.test',
      passwordHash: await hashPassword('rss password'),
    });
    const benchEnv: BenchEnv = { platform, user, token: signAccessToken(platform, user), base };
    const lines = [`# ${duration}s per request, ${connections} connections, ${os.cpus().length} CPUs, Node ${process.version}`];
    lines.push(`server: NODE_OPTIONS="${nodeOptions}" node ${start.join(' ')}`);
    lines.push(`RSS after start (before any request): ${(started / MiB).toFixed(0)} MiB`);
    for (const bench of GRAPHQL_BENCHMARKS) {
      for (const [label, make] of [
        ['GraphQL', bench.prepare],
        ['REST', bench.rest],
      ] as const) {
        if (!make) continue;
        const rps = await load(base, await make(benchEnv), duration, connections);
        lines.push(`${bench.name} [${label}]: ${rps.toFixed(0)} req/s; RSS ${(rssOf(server.pid!) / MiB).toFixed(0)} MiB`);
      }
    }
    lines.push(`RSS after the load: ${(rssOf(server.pid!) / MiB).toFixed(0)} MiB`);
    // Where it is, as the process itself reports it (GET /metrics from loopback).
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const mib = (re: RegExp) => [...metrics.matchAll(re)].map((m) => `${m[1] ?? ''}${(Number(m[2]) / MiB).toFixed(0)}`).join(' ');
    lines.push(
      `  V8 heap total ${mib(/^nodejs_heap_size_total_bytes()\s+(\S+)$/gm)} MiB, used ${mib(/^nodejs_heap_size_used_bytes()\s+(\S+)$/gm)} MiB`,
    );
    lines.push(
      `  heap spaces (size): ${mib(/^nodejs_heap_space_size_total_bytes\{space="(\w+)"\}\s+(\S+)$/gm).replace(/(\D)(\d)/g, '$1=$2')} MiB`,
    );
    lines.push(`  external (ArrayBuffers, WebAssembly): ${mib(/^nodejs_external_memory_bytes()\s+(\S+)$/gm)} MiB`);
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await platform.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
