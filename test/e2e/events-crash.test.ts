// No event is lost: a process killed (SIGKILL) after a record write committed and before its
// event was relayed leaves the event in the outbox; the next process delivers it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../subgraphs/core/embedded-postgres.js';
import type { Platform } from '../../subgraphs/core/platform.js';
import { createTestDatabase } from '../support/db.js';
import { waitFor } from '../support/events.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const children = new Set<ChildProcess>();
afterEach(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  children.clear();
});

async function start(env: Record<string, string>): Promise<{ child: ChildProcess; port: number; exited: Promise<unknown> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'gateway/main.ts'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`start failed:\n${out}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, port, exited };
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `npm run start:worker` as its source: a process that only runs the queue worker (and the relay and sweeps). */
async function startWorkerProcess(env: Record<string, string>): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'subgraphs/events/worker.main.ts'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  const exited = new Promise((resolve) => child.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker start failed:\n${out}`)), 90_000);
    const onData = (c: Buffer) => {
      out += c;
      if (out.includes('events worker running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`worker exited:\n${out}`));
    });
  });
  return { child, exited };
}

/** A JSON call with a Host header (fetch() may not set Host: node:http can). */
function caller(base: string, host: string, token: string) {
  return (method: string, p: string, body: unknown) =>
    new Promise<{ status: number; body: Record<string, any> }>((resolve, reject) => {
      const req = http.request(
        `${base}${p}`,
        { method, headers: { authorization: `Bearer ${token}`, host, 'content-type': 'application/json' } },
        (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
}

async function signIn(base: string, password: string): Promise<string> {
  const login = await fetch(`${base}/api/auth/jwt/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password }),
  });
  return ((await login.json()) as { access: string }).access;
}

/**
 * A database and data directory of their own, the environment a platform process needs on
 * them (the given admin password, rate limits off) and a small pool to look at the database;
 * all removed after `fn`.
 */
async function withWorld(
  prefix: string,
  password: string,
  fn: (w: { env: Record<string, string>; pool: pg.Pool }) => Promise<void>,
): Promise<void> {
  const db = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const env = {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    ADMIN_USERNAME: 'root',
    ADMIN_PASSWORD: password,
    ADMIN_EMAIL: 'root@example.test',
    RATE_LIMIT_STANDARD: 'off',
    RATE_LIMIT_WRITE: 'off',
    RATE_LIMIT_AUTH: 'off',
  };
  try {
    await fn({ env, pool });
  } finally {
    await pool.end();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const NOTES = {
  name: 'notes',
  schema: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'text', type: 'string' },
    ],
    primaryKey: ['id'],
  },
};

test('an event committed but not relayed when the process is killed is delivered after restart', async () => {
  await withWorld('tenantry-crash-', 'crash-test-password', async ({ env, pool }) => {
    // First process: relays only on its (long) sweep interval, so the kill lands between commit and relay.
    const first = await start({ ...env, EVENTS_RELAY_ON_COMMIT: 'false', EVENTS_RELAY_INTERVAL_MS: '600000' });
    const base = `http://127.0.0.1:${first.port}`;
    const login = await fetch(`${base}/api/auth/jwt/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: 'crash-test-password' }),
    });
    const { access } = (await login.json()) as { access: string };
    const platform = { pool } as unknown as Platform;
    const org = await insertOrg(platform, 'crash-org');
    const site = await insertSite(platform, org.id, 'crash', 'crash.events.test');
    await insertApp(platform, site.id, 'web');
    // fetch() may not set Host: node:http can.
    const call = (method: string, p: string, body: unknown) =>
      new Promise<{ status: number; body: Record<string, any> }>((resolve, reject) => {
        const payload = JSON.stringify(body);
        const req = http.request(
          `${base}${p}`,
          { method, headers: { authorization: `Bearer ${access}`, host: 'crash.events.test', 'content-type': 'application/json' } },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    const schema = {
      name: 'notes',
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'text', type: 'string' },
        ],
        primaryKey: ['id'],
      },
    };
    expect((await call('POST', '/api/apps/web/datatables/create_schema/', { resources: [schema] })).status).toBeLessThan(300);
    const fn = await call('POST', '/api/apps/web/functions/', { name: 'keep', code: 'async function main(p) { return p.record_id; }' });
    expect(fn.status).toBe(201);
    expect((await call('POST', '/api/cloud/events/RECORD_CREATE/subscribe/', { function_id: fn.body.id })).status).toBe(201);
    expect((await call('POST', '/api/apps/web/datatables/notes/data/', { id: 7, text: 'survive' })).status).toBe(201);
    first.child.kill('SIGKILL');
    await first.exited;
    const outbox = await pool.query('SELECT event, payload FROM event_outbox');
    expect(outbox.rows).toEqual([{ event: 'RECORD_CREATE', payload: expect.objectContaining({ record_id: '7' }) }]);
    expect((await pool.query('SELECT count(*)::int AS n FROM event_invocations')).rows[0].n).toBe(0);

    // Second process: its start-up sweep relays the outbox and its worker runs the function.
    const second = await start(env);
    const inv = await waitFor(
      async () => (await pool.query(`SELECT * FROM event_invocations WHERE status = 'succeeded'`)).rows[0],
      60_000,
      'the delivery after restart',
    );
    expect(inv).toMatchObject({ event: 'RECORD_CREATE', trigger_type: 'event', result: '7', deliveries: 1 });
    expect((await pool.query('SELECT count(*)::int AS n FROM event_outbox')).rows[0].n).toBe(0);
    second.child.kill('SIGTERM');
    await second.exited;
  });
}, 240_000);

test('npm run start:worker: a separate worker process runs the jobs a gateway without a worker enqueues (one shared queue)', async () => {
  await withWorld('tenantry-worker-', 'worker-test-password', async ({ env, pool }) => {
    // The gateway relays the outbox on commit and enqueues, but runs no job itself.
    const gateway = await start({ ...env, EVENTS_WORKER: 'off' });
    const base = `http://127.0.0.1:${gateway.port}`;
    const platform = { pool } as unknown as Platform;
    const org = await insertOrg(platform, 'worker-org');
    const site = await insertSite(platform, org.id, 'wrk', 'worker.events.test');
    await insertApp(platform, site.id, 'web');
    const call = caller(base, 'worker.events.test', await signIn(base, 'worker-test-password'));
    expect((await call('POST', '/api/apps/web/datatables/create_schema/', { resources: [NOTES] })).status).toBeLessThan(300);
    const fn = await call('POST', '/api/apps/web/functions/', { name: 'keep', code: 'async function main(p) { return p.record_id; }' });
    expect((await call('POST', '/api/cloud/events/RECORD_CREATE/subscribe/', { function_id: fn.body.id })).status).toBe(201);
    expect((await call('POST', '/api/apps/web/datatables/notes/data/', { id: 1, text: 'queued' })).status).toBe(201);
    const queued = await waitFor(
      async () => (await pool.query(`SELECT id, status FROM event_invocations`)).rows[0],
      30_000,
      'the relayed invocation',
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect((await pool.query(`SELECT status FROM event_invocations WHERE id = $1`, [queued.id])).rows[0].status).toBe('pending');

    // Two worker processes on the same queue: the waiting job runs once, and later events run too.
    const w1 = await startWorkerProcess(env);
    const w2 = await startWorkerProcess(env);
    const done = await waitFor(
      async () => (await pool.query(`SELECT * FROM event_invocations WHERE id = $1 AND status = 'succeeded'`, [queued.id])).rows[0],
      60_000,
      'the run by the worker process',
    );
    expect(done).toMatchObject({ result: '1', attempts: 1, deliveries: 1 });
    for (let i = 2; i <= 6; i++)
      expect((await call('POST', '/api/apps/web/datatables/notes/data/', { id: i, text: 'more' })).status).toBe(201);
    const all = await waitFor(
      async () => {
        const r = await pool.query(`SELECT status, attempts, deliveries FROM event_invocations ORDER BY id`);
        return r.rows.length === 6 && r.rows.every((x) => x.status === 'succeeded') ? r.rows : null;
      },
      60_000,
      'the later runs',
    );
    expect(all.every((x) => x.attempts === 1 && x.deliveries === 1)).toBe(true);
    for (const w of [w1, w2]) w.child.kill('SIGTERM');
    await Promise.all([w1.exited, w2.exited]);
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  });
}, 240_000);
