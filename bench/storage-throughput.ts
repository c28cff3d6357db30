// Storage throughput (issue 13 item 9), side by side in one run:
//   - upload and download of a 100 MB file through the platform (raw PUT, GET) against a bare
//     Node HTTP server piping the same bytes to and from the same disk;
//   - a 1 GiB upload through the platform with the process's RSS sampled every 50 ms.
// Client and server share this process, so RSS includes the client (a generated stream).
//
//   DATABASE_URL=postgresql://…/postgres node --import tsx bench/storage-throughput.ts [--mb 100] [--gib 1]
//
// DATABASE_URL is the admin URL: the run creates and drops a database of its own.
import fs from 'node:fs';
import http from 'node:http';
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
import { hashPassword } from '../subgraphs/tenancy/password.js';
import { userRepository } from '../subgraphs/tenancy/user.repository.js';
import crypto from 'node:crypto';
import pg from 'pg';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '100' }, gib: { type: 'string', default: '1' } } });
const SIZE = Number(values.mb) * 1024 * 1024;
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
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: db.url,
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
  const objects = `${base}/api/apps/bench/storage/buckets/files/objects/`;

  // The bare side: the same disk, no platform.
  const bareDir = path.join(dataDir, 'bare');
  fs.mkdirSync(bareDir);
  const bare = http.createServer(async (req, res) => {
    const file = path.join(bareDir, 'f.bin');
    if (req.method === 'PUT') {
      await pipeline(req, fs.createWriteStream(file, { flush: true }));
      res.writeHead(201).end('{}');
    } else {
      res.writeHead(200, { 'content-length': fs.statSync(file).size });
      await pipeline(fs.createReadStream(file, { highWaterMark: 256 * 1024 }), res);
    }
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/f.bin`;

  const put = { 'content-type': 'application/octet-stream', 'content-length': SIZE };
  const [pu, puMs] = await timed(() => request(`${objects}big.bin`, 'PUT', { ...headers, ...put }, generated(SIZE)));
  const [bu, buMs] = await timed(() => request(bareUrl, 'PUT', put, generated(SIZE)));
  const [pd, pdMs] = await timed(() => request(`${objects}big.bin`, 'GET', headers));
  const [bd, bdMs] = await timed(() => request(bareUrl, 'GET', {}));
  if (pu.status !== 201 || pd.bytes !== SIZE || bu.status !== 201 || bd.bytes !== SIZE)
    throw new Error(`unexpected: ${JSON.stringify({ pu, pd, bu, bd })}`);
  const line = (what: string, pMs: number, bMs: number) =>
    console.log(
      `${what.padEnd(24)} platform ${mbps(SIZE, pMs).padStart(7)} MiB/s   bare ${mbps(SIZE, bMs).padStart(7)} MiB/s   ratio ${(bMs / pMs).toFixed(2)}`,
    );
  line(`upload ${values.mb} MB`, puMs, buMs);
  line(`download ${values.mb} MB`, pdMs, bdMs);

  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const [gu, guMs] = await timed(() =>
    request(`${objects}huge.bin`, 'PUT', { ...headers, 'content-type': 'application/octet-stream', 'content-length': BIG }, generated(BIG)),
  );
  clearInterval(sampler);
  if (gu.status !== 201) throw new Error(`1 GiB upload: ${gu.status}`);
  console.log(
    `upload ${values.gib} GiB`.padEnd(24) +
      ` platform ${mbps(BIG, guMs).padStart(7)} MiB/s   RSS before ${(before / 2 ** 20).toFixed(0)} MiB, peak ${(peak / 2 ** 20).toFixed(0)} MiB, growth ${((peak - before) / 2 ** 20).toFixed(0)} MiB`,
  );

  bare.close();
  await app.close();
  await platform.close();
  await db.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
