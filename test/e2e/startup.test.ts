// `npm start` as a user runs it: a child process on an embedded PostgreSQL in DATA_DIR,
// first superuser from ADMIN_*, health endpoints, clean shutdown on SIGTERM/SIGINT, and a
// restart on the same data. Also: a bad configuration value stops the start naming it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../subgraphs/core/embedded-postgres.js';
import { createTestDatabase } from '../support/db.js';

const ENTRY = ['--import', 'tsx', 'gateway/main.ts'];
const ROOT = process.cwd();
const children = new Set<ChildProcess>();
// A failed assertion must not leave a platform (and its PostgreSQL) running.
afterEach(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  children.clear();
});

interface Running {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function start(env: Record<string, string>, args: string[] = ENTRY): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 45_000;
  while (!out.includes('platform listening')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`start failed:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, port, output: () => out, exited };
}

const get = async (port: number, p: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${p}`);
  return { status: res.status, body: await res.json() };
};

const login = async (port: number, username: string, password: string) =>
  fetch(`http://127.0.0.1:${port}/api/auth/jwt/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });

describe('npm start on an embedded PostgreSQL', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-start-'));
  const env = { DATA_DIR: dataDir, ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'start-test-password', ADMIN_EMAIL: 'root@example.test' };
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('starts, serves, creates the first superuser, stops cleanly on SIGTERM', async () => {
    const run = await start(env);
    expect(await get(run.port, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get(run.port, '/readyz')).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok' } } });
    expect((await login(run.port, 'root', 'start-test-password')).status).toBe(200);
    expect(run.output()).toContain('first superuser created');
    expect(run.output()).not.toContain('start-test-password');
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(fs.statSync(path.join(dataDir, 'keys', 'jwt-private.pem')).mode & 0o777).toBe(0o600);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('"msg":"stopped"');
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });

  test('restarts on the same data without re-running migrations or duplicating the admin; stops on SIGINT', async () => {
    const run = await start(env);
    expect(run.output()).not.toContain('platform migrations applied');
    expect(run.output()).not.toContain('first superuser created');
    expect((await login(run.port, 'root', 'start-test-password')).status).toBe(200);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });
});

test('DATABASE_URL switches to an external PostgreSQL', async () => {
  const db = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-ext-'));
  try {
    const run = await start({ DATA_DIR: dataDir, DATABASE_URL: db.url });
    expect(run.output()).not.toContain('embedded PostgreSQL started');
    expect((await get(run.port, '/readyz')).status).toBe(200);
    expect(fs.existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    run.child.kill('SIGTERM');
    expect({ code: await run.exited, output: run.output() }).toEqual({ code: 0, output: expect.stringContaining('"msg":"stopped"') });
  } finally {
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.each([
  ['PORT', 'eighty'],
  ['DATABASE_URL', 'mysql://x@y/z'],
  ['RATE_LIMIT_STANDARD', 'lots'],
  ['TRUST_PROXY', 'maybe'],
  ['SECRETS_MASTER_KEY', 'c2hvcnQ='],
])('a bad %s stops the start with a message naming it', (variable, value) => {
  const run = spawnSync(process.execPath, ENTRY, {
    env: { PATH: process.env.PATH, [variable]: value, DATA_DIR: path.join(os.tmpdir(), 'tenantry-never') },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(run.status).toBe(2);
  expect(run.stderr).toContain(`Configuration error: ${variable}`);
  expect(fs.existsSync(path.join(os.tmpdir(), 'tenantry-never'))).toBe(false);
});

describe('npm start runs the compiled JavaScript', () => {
  const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;

  test('the start scripts run dist/ without a TypeScript loader, built by prepare and by the pre-scripts', () => {
    for (const name of ['start', 'start:worker', 'start:subgraph', 'cli']) {
      expect(scripts[name]).toMatch(/^(NODE_OPTIONS="[^"]*\$NODE_OPTIONS" )?node --no-node-snapshot dist\/\S+\.js$/);
      expect(scripts[`pre${name}`]).toBe('node scripts/build.mjs --if-stale');
    }
    expect(scripts.prepare).toBe('node scripts/build.mjs --if-stale');
  });

  test('the build answers /healthz and /readyz, and stops on SIGTERM', async () => {
    const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect({ status: build.status, stderr: build.stderr }).toEqual({ status: 0, stderr: expect.not.stringContaining('failed') });
    // The start script as npm runs it, with this Node: its heap limit in NODE_OPTIONS (where an
    // operator's own NODE_OPTIONS, coming after it, overrides it).
    const m = /^NODE_OPTIONS="([^"]*)\$NODE_OPTIONS" node (.+)$/.exec(scripts.start)!;
    expect(m[1]).toMatch(/^--max-old-space-size=\d+ $/);
    const args = m[2].split(' ');
    expect(fs.existsSync(path.join(ROOT, args[args.length - 1]))).toBe(true);
    const db = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-dist-'));
    try {
      const run = await start({ DATA_DIR: dataDir, DATABASE_URL: db.url, NODE_OPTIONS: m[1].trim() }, args);
      expect(await get(run.port, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await get(run.port, '/readyz')).toEqual({ status: 200, body: { status: 'ok', checks: { database: 'ok' } } });
      // GraphQL reads its SDL from schema/ and the migrations ran from prisma/migrations: both
      // found from dist/.
      const gql = await fetch(`http://127.0.0.1:${run.port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(await gql.json()).toEqual({ data: { __typename: 'Query' } });
      run.child.kill('SIGTERM');
      expect({ code: await run.exited, output: run.output() }).toEqual({ code: 0, output: expect.stringContaining('"msg":"stopped"') });
    } finally {
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
