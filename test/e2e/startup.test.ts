// `npm start` as a user runs it: a child process on an embedded PostgreSQL in DATA_DIR,
// first superuser from ADMIN_*, health endpoints, clean shutdown on SIGTERM/SIGINT, and a
// restart on the same data. Also: a bad configuration value stops the start naming it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
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
  const deadline = Date.now() + 150_000;
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

const CLI = ['--import', 'tsx', 'scripts/cli.ts'];
const runCli = (env: Record<string, string>, ...args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    // Asynchronous: the server of this test file runs in a child meanwhile.
    const child = spawn(process.execPath, [...CLI, ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });

const postmasterPid = (dataDir: string): number | null => {
  try {
    return Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

describe('the embedded database survives a crash and is shared by a second process', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-crash-'));
  const env = { DATA_DIR: dataDir, ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'crash-test-password', ADMIN_EMAIL: 'root@example.test' };
  afterAll(() => {
    const pid = postmasterPid(dataDir);
    if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('createsuperuser, rotate-keys and a subgraph process run while the server runs, on its embedded PostgreSQL', async () => {
    const run = await start(env);
    const serverFile = JSON.parse(fs.readFileSync(path.join(dataDir, 'postgres.json'), 'utf8'));
    expect(serverFile).toMatchObject({ pid: postmasterPid(dataDir), host: '127.0.0.1', owner: run.child.pid });
    const created = await runCli(
      { DATA_DIR: dataDir, TENANTRY_PASSWORD: 'online-cli-password' },
      'createsuperuser',
      '--username',
      'online',
      '--email',
      'online@example.test',
    );
    expect(created).toMatchObject({ status: 0, stderr: '' });
    const rotated = await runCli({ DATA_DIR: dataDir }, 'rotate-keys');
    expect(rotated).toMatchObject({ status: 0, stderr: '' });
    expect(rotated.stdout).toContain('Rotated secrets data keys');
    // The server's database is the one the CLI wrote to, and it still runs.
    expect((await login(run.port, 'online', 'online-cli-password')).status).toBe(200);
    expect((await get(run.port, '/readyz')).status).toBe(200);

    // `npm run start:subgraph` on the same DATA_DIR connects to it too, and leaves it running.
    const subgraphPort = await freePort();
    const sub = spawn(process.execPath, ['--import', 'tsx', 'subgraphs/serve.ts', 'tenancy', '--port', String(subgraphPort)], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(sub);
    let subOut = '';
    sub.stdout!.on('data', (c) => (subOut += c));
    sub.stderr!.on('data', (c) => (subOut += c));
    const subExited = new Promise<number | null>((resolve) => sub.on('exit', resolve));
    for (const until = Date.now() + 150_000; !subOut.includes('subgraph listening');) {
      if (sub.exitCode !== null || Date.now() > until) throw new Error(`subgraph start failed:\n${subOut}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(subOut).toContain('embedded PostgreSQL shared with a running process');
    expect((await get(subgraphPort, '/healthz')).status).toBe(200);
    sub.kill('SIGTERM');
    expect(await subExited).toBe(0);
    expect((await get(run.port, '/readyz')).status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(postmasterPid(dataDir)).toBeNull();
  }, 400_000);

  test('after kill -9 of the server, the next start reuses the PostgreSQL left running, and stops it', async () => {
    const first = await start(env);
    const pgPid = postmasterPid(dataDir)!;
    first.child.kill('SIGKILL');
    await first.exited;
    expect(alive(pgPid)).toBe(true);
    const second = await start(env);
    expect(second.output()).toContain('embedded PostgreSQL reused');
    expect(postmasterPid(dataDir)).toBe(pgPid);
    expect((await login(second.port, 'root', 'crash-test-password')).status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(alive(pgPid)).toBe(false);
    expect(postmasterPid(dataDir)).toBeNull();
  }, 400_000);
});

describe('start-up failures: one line naming the cause and the variable, no stack trace', () => {
  const startSync = (env: Record<string, string>) =>
    spawnSync(process.execPath, ENTRY, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME ?? '', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
  const oneLine = (stderr: string) => {
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
    return stderr.trim();
  };
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-fail-'));
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('ADMIN_PASSWORD too short', () => {
    const r = startSync({ DATABASE_URL: db.url, DATA_DIR: dataDir, ADMIN_USERNAME: 'a', ADMIN_PASSWORD: 'short' });
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toBe('Configuration error: ADMIN_PASSWORD: Ensure this field has at least 8 characters.');
  });

  test('database unreachable', async () => {
    const port = await freePort();
    const r = startSync({ DATABASE_URL: `postgresql://u:p@127.0.0.1:${port}/nothing`, DATA_DIR: dataDir });
    expect(r.status).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/^Start failed: the database at DATABASE_URL does not answer/);
  });

  test('port in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = startSync({ DATABASE_URL: db.url, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'silent' });
      expect(r.status).toBe(1);
      expect(oneLine(r.stderr)).toBe(`Start failed: address 127.0.0.1:${port} is in use (PORT, HOST)`);
    } finally {
      blocker.close();
    }
  });
});
