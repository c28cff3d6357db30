// Storage throughput (issue 13 item 9), side by side in one run:
//   - upload and download of a 100 MB file through the platform (raw PUT, GET) against a bare
//     Node HTTP server piping the same bytes to and from the same disk, with the same file
//     stream options as the local provider (write buffer, fsync before close, read chunk size);
//     `--rounds` rounds, alternating which side goes first, each to a new file (no overwrite on
//     either side); the medians are the figures, round 1 (cold process) is shown too;
//   - a 1 GiB upload through the platform with the process's RSS sampled every 50 ms.
// Client and server share this process, so RSS includes the client (a generated stream).
//
//   DATABASE_URL=postgresql://…/postgres node --import tsx bench/storage-throughput.ts [--mb 100] [--gib 1] [--rounds 5]
//
// `--profile DIR` writes a CPU profile of the main thread per side and round (<side>-<round>.cpuprofile;
// the profiler slows both sides: its timings are not figures).
//
// DATABASE_URL is the admin URL: the run creates and drops a database of its own.
import fs from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { buildApp } from '../gateway/app.js';
import { signAccessToken } from '../subgraphs/auth/jwt.service.js';
import { loadConfig } from '../subgraphs/core/config.js';
import { createLogger } from '../subgraphs/core/logger.js';
import { startPlatform } from '../subgraphs/core/platform.js';
import { MODULES } from '../subgraphs/modules.js';
import { READ_HIGH_WATER_MARK, WRITE_HIGH_WATER_MARK } from '../subgraphs/storage/providers/local.provider.js';
import { hashPassword } from '../subgraphs/tenancy/password.js';
import { userRepository } from '../subgraphs/tenancy/user.repository.js';
import crypto from 'node:crypto';
import pg from 'pg';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '100' },
    gib: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '5' },
    profile: { type: 'string' },
  },
});
const SIZE = Number(values.mb) * 1024 * 1024;
const ROUNDS = Math.max(1, Number(values.rounds));
const BIG = Number(values.gib) * 1024 * 1024 * 1024;
const HOST = 'bench-throughput.localhost';

function generated(total: number): Readable {
  const chunk = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= total) return this.push(null);
      const n = Math.min(chunk.length, total - sent);
      sent += n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}

function request(
  url: string,
  method: string,
  headers: Record<string, string | number>,
  body?: Readable,
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

const mbps = (bytes: number, ms: number) => (bytes / 1024 / 1024 / (ms / 1000)).toFixed(1);
/** CPU time of this process's main thread (Linux schedstat, ns resolution). */
const mainThreadCpuMs = () => Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await f();
  return [out, performance.now() - t0];
}

/** A database of its own next to DATABASE_URL's (which is only the admin connection). */
async function ownDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('DATABASE_URL (an admin connection) is required');
  const name = `bench_storage_${crypto.randomBytes(4).toString('hex')}`;
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function main() {
  const db = await ownDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-throughput-'));
  try {
    await run(db.url, dataDir);
  } finally {
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function run(databaseUrl: string, dataDir: string) {
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    RATE_LIMIT_STANDARD: 'off',
    RATE_LIMIT_AUTH: 'off',
    RATE_LIMIT_WRITE: 'off',
    LOG_LEVEL: 'warn',
  });
  const platform = await startPlatform(config, createLogger('warn', fs.createWriteStream('/dev/null')), { modules: MODULES, seed: true });
  const app = await buildApp(platform);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const user = await userRepository.create(platform.prisma, {
    username: 'bench-throughput',
    email: 'bench-throughput@example.test',
    passwordHash: await hashPassword('bench password 1'),
  });
  const token = signAccessToken(platform, user);
  const q = async (sql: string, params: unknown[] = []) => (await platform.pool.query(sql, params)).rows;
  const [org] = await q(`INSERT INTO organizations (slug, name) VALUES ('tp-org', 'TP') RETURNING id`);
  await q(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($1, $2, 'owner')`, [org.id, user.id]);
  const [site] = await q(`INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ('tp', 'TP', $1, 'tp') RETURNING id`, [
    org.id,
  ]);
  await q(`INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ('tp-localhost', $1, $2, true)`, [HOST, site.id]);
  const [appRow] = await q(`INSERT INTO apps (site_id, slug, name) VALUES ($1, 'bench', 'Bench') RETURNING id`, [site.id]);
  await q(
    `INSERT INTO storage_buckets (site_id, app_id, name, slug, provider, file_size_limit, created_by_id) VALUES ($1, $2, 'F', 'files', 'object_store', $3, $4)`,
    [site.id, appRow.id, 5 * 1024 * 1024 * 1024, user.id],
  );
  const headers = { host: HOST, authorization: `Bearer ${token}` };
  const bucketUrl = `${base}/api/apps/bench/storage/buckets/files/`;
  const objects = `${bucketUrl}objects/`;

  // The bare side: the same disk, no platform; the local provider's stream options (its write
  // buffer and fsync before close, its read chunk size), HTTP like the platform side.
  const bareDir = path.join(dataDir, 'bare');
  fs.mkdirSync(bareDir);
  const bare = http.createServer(async (req, res) => {
    const file = path.join(bareDir, path.basename(req.url ?? 'f.bin'));
    if (req.method === 'PUT') {
      await pipeline(req, fs.createWriteStream(file, { flush: true, highWaterMark: WRITE_HIGH_WATER_MARK }));
      res.writeHead(201).end('{}');
    } else {
      res.writeHead(200, { 'content-length': fs.statSync(file).size });
      await pipeline(fs.createReadStream(file, { highWaterMark: READ_HIGH_WATER_MARK }), res);
    }
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareBase = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;

  const put = { 'content-type': 'application/octet-stream', 'content-length': SIZE };
  const sides = {
    platformUp: (r: number) => request(`${objects}big-${r}.bin`, 'PUT', { ...headers, ...put }, generated(SIZE)),
    bareUp: (r: number) => request(`${bareBase}f-${r}.bin`, 'PUT', put, generated(SIZE)),
    platformDown: (r: number) => request(`${objects}big-${r}.bin`, 'GET', headers),
    bareDown: (r: number) => request(`${bareBase}f-${r}.bin`, 'GET', {}),
  };
  const ms: Record<keyof typeof sides, number[]> = { platformUp: [], bareUp: [], platformDown: [], bareDown: [] };
  const inspector = values.profile ? new Session() : null;
  if (inspector) {
    fs.mkdirSync(values.profile!, { recursive: true });
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
  }
  const profiled = async <T>(name: string, f: () => Promise<T>): Promise<T> => {
    if (!inspector) return f();
    await inspector.post('Profiler.start');
    try {
      return await f();
    } finally {
      const { profile } = await inspector.post('Profiler.stop');
      fs.writeFileSync(path.join(values.profile!, `${name}.cpuprofile`), JSON.stringify(profile));
    }
  };
  // CPU time as well as wall time: on a shared machine the wall time mostly measures the other
  // sessions; the main thread's CPU time (the event loop: client and server share it) is what
  // bounds the throughput on a quiet machine, the process's CPU time adds the file system's
  // thread pool and the hash worker.
  const cpu: Record<keyof typeof sides, { main: number[]; all: number[] }> = {
    platformUp: { main: [], all: [] },
    bareUp: { main: [], all: [] },
    platformDown: { main: [], all: [] },
    bareDown: { main: [], all: [] },
  };
  const once = async (side: keyof typeof sides, r: number) => {
    const [main0, all0] = [mainThreadCpuMs(), process.cpuUsage()];
    const [out, t] = await profiled(`${side}-${r + 1}`, () => timed(() => sides[side](r)));
    const all = process.cpuUsage(all0);
    cpu[side].main.push(mainThreadCpuMs() - main0);
    cpu[side].all.push((all.user + all.system) / 1000);
    const ok = side.endsWith('Up') ? out.status === 201 : out.status === 200 && out.bytes === SIZE;
    if (!ok) throw new Error(`${side} round ${r}: ${JSON.stringify(out)}`);
    ms[side].push(t);
  };
  console.log(`# ${values.mb} MB x ${ROUNDS} rounds, Node ${process.version}, ${os.cpus().length} CPUs, load average ${load()}`);
  for (let r = 0; r < ROUNDS; r++) {
    const platformFirst = r % 2 === 0;
    for (const [a, b] of [
      ['platformUp', 'bareUp'],
      ['platformDown', 'bareDown'],
    ] as const) {
      await once(platformFirst ? a : b, r);
      await once(platformFirst ? b : a, r);
    }
    console.log(
      `round ${r + 1} (${platformFirst ? 'platform' : 'bare'} first): upload ${mbps(SIZE, ms.platformUp[r])} vs ${mbps(SIZE, ms.bareUp[r])} MiB/s, ` +
        `download ${mbps(SIZE, ms.platformDown[r])} vs ${mbps(SIZE, ms.bareDown[r])} MiB/s; ` +
        `main-thread CPU ms up ${cpu.platformUp.main[r].toFixed(0)} vs ${cpu.bareUp.main[r].toFixed(0)}, ` +
        `down ${cpu.platformDown.main[r].toFixed(0)} vs ${cpu.bareDown.main[r].toFixed(0)}`,
    );
    // Outside the timings: the round's files go (both sides write new files every round).
    const del = await request(`${bucketUrl}object/big-${r}.bin`, 'DELETE', headers);
    if (del.status !== 200) throw new Error(`delete round ${r}: ${del.status}`);
    fs.rmSync(path.join(bareDir, `f-${r}.bin`));
  }
  const line = (what: string, p: number[], b: number[]) =>
    console.log(
      `${what.padEnd(24)} platform ${mbps(SIZE, median(p)).padStart(7)} MiB/s   bare ${mbps(SIZE, median(b)).padStart(7)} MiB/s   ratio ${(median(b) / median(p)).toFixed(2)} (median of ${p.length}; round 1 ${(b[0] / p[0]).toFixed(2)})`,
    );
  line(`upload ${values.mb} MB`, ms.platformUp, ms.bareUp);
  line(`download ${values.mb} MB`, ms.platformDown, ms.bareDown);
  const cpuLine = (what: string, p: keyof typeof sides, b: keyof typeof sides) =>
    console.log(
      `${what.padEnd(24)} CPU ms (median) main thread: platform ${median(cpu[p].main).toFixed(0)}, bare ${median(cpu[b].main).toFixed(0)}, ` +
        `ratio ${(median(cpu[b].main) / median(cpu[p].main)).toFixed(2)}; process: platform ${median(cpu[p].all).toFixed(0)}, bare ${median(cpu[b].all).toFixed(0)}`,
    );
  cpuLine(`upload ${values.mb} MB`, 'platformUp', 'bareUp');
  cpuLine(`download ${values.mb} MB`, 'platformDown', 'bareDown');

  // --gib 0: no large upload.
  if (BIG > 0) {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const [gu, guMs] = await timed(() =>
      request(
        `${objects}huge.bin`,
        'PUT',
        { ...headers, 'content-type': 'application/octet-stream', 'content-length': BIG },
        generated(BIG),
      ),
    );
    clearInterval(sampler);
    if (gu.status !== 201) throw new Error(`1 GiB upload: ${gu.status}`);
    console.log(
      `upload ${values.gib} GiB`.padEnd(24) +
        ` platform ${mbps(BIG, guMs).padStart(7)} MiB/s   RSS before ${(before / 2 ** 20).toFixed(0)} MiB, peak ${(peak / 2 ** 20).toFixed(0)} MiB, growth ${((peak - before) / 2 ** 20).toFixed(0)} MiB`,
    );
  }
  console.log(`# load average at the end ${load()}`);

  bare.close();
  await app.close();
  await platform.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
