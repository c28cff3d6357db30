// Events benchmarks (docs/events.md):
//   sandbox cold start (new isolate + compile + run) and warm run (cached isolate, fresh
//   context) of a trivial function, in µs; end-to-end latency from a record insert (REST) to its
//   RECORD_CREATE invocation finishing, p50/p99; and throughput of events delivered per second
//   after a bulk insert. On the PostgreSQL queue backend, or Redis with --redis.
//
//   DATABASE_URL=… node --no-node-snapshot --import tsx bench/events-latency.ts [--redis URL] [--events 200] [--bulk 1000] [--skip-sandbox]
//
// The run gets a database of its own (bench_events_<pid>, created through DATABASE_URL and dropped
// at the end) and, with --redis, the key prefix tenantry:bench_events_<pid> (deleted at the end).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { buildApp } from '../gateway/app.js';
import { signAccessToken } from '../subgraphs/auth/jwt.service.js';
import { loadConfig } from '../subgraphs/core/config.js';
import { createLogger } from '../subgraphs/core/logger.js';
import { startPlatform } from '../subgraphs/core/platform.js';
import { runInSandbox } from '../subgraphs/events/runtime/sandbox.js';
import { MODULES } from '../subgraphs/modules.js';
import { hashPassword } from '../subgraphs/tenancy/password.js';
import { userRepository } from '../subgraphs/tenancy/user.repository.js';

const { values } = parseArgs({
  options: { redis: { type: 'string' }, events: { type: 'string' }, bulk: { type: 'string' }, 'skip-sandbox': { type: 'boolean' } },
});
const EVENTS = Number(values.events ?? 200);
const BULK = Number(values.bulk ?? 1000);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function sandbox(): Promise<void> {
  const code = 'async function main(p) { return p.n + 1; }';
  const cold: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = process.hrtime.bigint();
    await runInSandbox({ key: null, code, params: { n: i }, user: null, timeoutMs: 1000 });
    cold.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  const warm: number[] = [];
  for (let i = 0; i < 500; i++) {
    const t0 = process.hrtime.bigint();
    await runInSandbox({ key: 'bench', code, params: { n: i }, user: null, timeoutMs: 1000 });
    warm.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  console.log(`sandbox cold start: p50 ${pct(cold, 50).toFixed(0)} µs, p99 ${pct(cold, 99).toFixed(0)} µs (30 runs)`);
  console.log(`sandbox warm run:   p50 ${pct(warm, 50).toFixed(0)} µs, p99 ${pct(warm, 99).toFixed(0)} µs (500 runs)`);
}

/** Deletes this run's queue keys (the prefix is named after the run's own database). */
async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('Set DATABASE_URL (an admin URL: a scratch database is created and dropped).');
  if (!values['skip-sandbox']) await sandbox();
  const name = `bench_events_${process.pid}`;
  const adminClient = new pg.Client({ connectionString: admin });
  await adminClient.connect();
  await adminClient.query(`CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-events-'));
  const config = loadConfig({
    DATABASE_URL: url.toString(),
    DATA_DIR: dataDir,
    REDIS_URL: values.redis ?? '',
    RATE_LIMIT_STANDARD: 'off',
    RATE_LIMIT_WRITE: 'off',
    LOG_LEVEL: 'warn',
    EVENTS_WORKER_CONCURRENCY: '8',
  });
  const platform = await startPlatform(config, createLogger('warn'), { modules: MODULES, seed: true });
  const app = await buildApp(platform);
  try {
    const q = (sql: string, params: unknown[] = []) => platform.pool.query(sql, params);
    const user = await userRepository.create(platform.prisma, {
      username: 'bench',
      email: 'bench@example.test',
      passwordHash: await hashPassword('bench-password-1'),
      isStaff: true,
      isSuperuser: true,
    } as never);
    const token = signAccessToken(platform, user);
    const org = (await q(`INSERT INTO organizations (slug, name) VALUES ('b', 'B') RETURNING id`)).rows[0];
    const site = (
      await q(`INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ('bs', 'BS', $1, 'bs') RETURNING id`, [org.id])
    ).rows[0];
    await q(`INSERT INTO domains (slug, domain, site_id, is_primary) VALUES ('bh', 'bench.events.test', $1, true)`, [site.id]);
    await q(`INSERT INTO apps (site_id, slug, name) VALUES ($1, 'web', 'Web')`, [site.id]);
    const call = async (method: string, p: string, body: unknown) => {
      const r = await app.inject({
        method: method as 'POST',
        url: p,
        headers: { host: 'bench.events.test', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      if (r.statusCode >= 300) throw new Error(`${p}: ${r.statusCode} ${r.body}`);
      return JSON.parse(r.body);
    };
    await call('POST', '/api/apps/web/datatables/create_schema/', {
      resources: [
        {
          name: 'ev',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'v', type: 'integer' },
            ],
            primaryKey: ['id'],
          },
        },
      ],
    });
    const fn = await call('POST', '/api/apps/web/functions/', { name: 'sink', code: 'async function main(p) { return p.record_id; }' });
    await call('POST', '/api/cloud/events/RECORD_CREATE/subscribe/', { function_id: fn.id });
    const waitDone = async (n: number) => {
      for (;;) {
        const r = await q(`SELECT count(*)::int AS n FROM event_invocations WHERE status = 'succeeded'`);
        if (r.rows[0].n >= n) return;
        await new Promise((res) => setTimeout(res, 5));
      }
    };
    // Latency: one insert at a time, from the request to the invocation's finished_at.
    // Stages: answered (the insert's response), relayed (invocation created), started (claimed
    // by the worker), finished.
    const lat: number[] = [];
    const stage = { answer: [] as number[], relay: [] as number[], queue: [] as number[], run: [] as number[] };
    for (let i = 1; i <= EVENTS; i++) {
      const t0 = Date.now();
      await call('POST', '/api/apps/web/datatables/ev/data/', { id: i, v: i });
      const answered = Date.now();
      await waitDone(i);
      const r = await q(`SELECT created_at, started_at, finished_at FROM event_invocations WHERE params->>'record_id' = $1`, [String(i)]);
      const [c, st, f] = [r.rows[0].created_at, r.rows[0].started_at, r.rows[0].finished_at].map((d) => new Date(d).getTime());
      lat.push(f - t0);
      stage.answer.push(answered - t0);
      stage.relay.push(c - t0);
      stage.queue.push(st - c);
      stage.run.push(f - st);
    }
    console.log(
      `insert → invocation finished (${config.redisUrl ? 'redis' : 'postgresql'}): p50 ${pct(lat, 50)} ms, p99 ${pct(lat, 99)} ms (${EVENTS} events); load average ${os.loadavg()[0].toFixed(2)}`,
    );
    console.log(
      `  stages p50/p99 ms: insert answered ${pct(stage.answer, 50)}/${pct(stage.answer, 99)}, insert → relayed ${pct(stage.relay, 50)}/${pct(stage.relay, 99)}, ` +
        `relayed → claimed ${pct(stage.queue, 50)}/${pct(stage.queue, 99)}, claimed → finished ${pct(stage.run, 50)}/${pct(stage.run, 99)}`,
    );
    if (!config.redisUrl) {
      // On the PostgreSQL queue the job rows (kept an hour) say when each job was added and taken.
      const j = await q(
        `SELECT extract(epoch FROM i.created_at) * 1000 AS created, j.added_at_ms AS added, j.processed_at_ms AS taken,
                extract(epoch FROM i.started_at) * 1000 AS claimed
           FROM event_invocations i JOIN bullmq.job j ON j.id = i.task_id::text ORDER BY i.id LIMIT $1`,
        [EVENTS],
      );
      const d = (a: string, b: string) => j.rows.map((r) => Math.round(Number(r[b]) - Number(r[a])));
      const [add, take, claim] = [d('created', 'added'), d('added', 'taken'), d('taken', 'claimed')];
      console.log(
        `  queue p50/p99 ms: relayed → job added ${pct(add, 50)}/${pct(add, 99)}, added → taken by the worker ${pct(take, 50)}/${pct(take, 99)}, ` +
          `taken → claimed ${pct(claim, 50)}/${pct(claim, 99)}`,
      );
    }
    // Throughput: one bulk insert of BULK records, until every event is delivered.
    // CPU: this process's (gateway, relay, worker, isolates), per delivered event; the database
    // server's is not counted. Steadier than wall time on a shared machine.
    const rows = Array.from({ length: BULK }, (_, k) => ({ id: 100_000 + k, v: k }));
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    for (let k = 0; k < rows.length; k += 500) await call('POST', '/api/apps/web/datatables/ev/data/', rows.slice(k, k + 500));
    await waitDone(EVENTS + BULK);
    const sec = (Date.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `throughput (${config.redisUrl ? 'redis' : 'postgresql'}): ${(BULK / sec).toFixed(0)} events delivered/s (${BULK} events in ${sec.toFixed(1)} s); ` +
        `process CPU ${((cpu.user + cpu.system) / 1000 / BULK).toFixed(2)} ms per event; load average ${os.loadavg()[0].toFixed(2)}`,
    );
  } finally {
    await app.close();
    await platform.close();
    await adminClient.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await adminClient.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (values.redis) await dropRedisPrefix(values.redis, `tenantry:${name}:`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
