// `npm run cli -- createsuperuser` against a real database, as an operator runs it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { AppError } from '../../subgraphs/core/errors.js';
import { verifyPassword } from '../../subgraphs/tenancy/password.js';
import { parseUserFields } from '../../subgraphs/tenancy/user-input.js';
import { createTestDatabase } from '../support/db.js';

const ENTRY = [process.execPath, '--import', 'tsx', 'scripts/cli.ts'];

const cli = (env: Record<string, string>, args: string[], input?: string) =>
  spawnSync(ENTRY[0], [...ENTRY.slice(1), ...args], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 30_000,
    input: input ?? '',
  });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string;
let env: Record<string, string>;
beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-cli-'));
  env = { DATABASE_URL: db.url, DATA_DIR: dataDir };
});
afterAll(async () => {
  await db.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function storedUser(username: string) {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT is_staff, is_superuser, email, password_hash FROM users WHERE username = $1', [username]);
    return rows[0];
  } finally {
    await client.end();
  }
}

/** What POST /api/users/ answers for a body: the same parser, so the same messages. */
function restErrors(body: Record<string, string>): Record<string, string[]> {
  try {
    parseUserFields(body, 'create');
  } catch (e) {
    return (e as AppError).errors ?? {};
  }
  return {};
}

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at /);

test('createsuperuser creates a staff superuser with an argon2id hash, and refuses a duplicate', async () => {
  const ok = cli(env, ['createsuperuser', '--username', 'ops', '--password', 'cli-secret-pass', '--email', 'ops@example.test']);
  expect(ok.status).toBe(0);
  expect(ok.stdout).toContain('Superuser "ops" created');
  // Accepted on the command line, with a warning that it is visible there.
  expect(ok.stderr).toContain('visible in the process list');
  const row = await storedUser('ops');
  expect(row).toMatchObject({ is_staff: true, is_superuser: true, email: 'ops@example.test' });
  expect(row.password_hash).toMatch(/^\$argon2id\$/);

  const again = cli({ ...env, TENANTRY_PASSWORD: 'cli-secret-pass' }, [
    'createsuperuser',
    '--username',
    'ops',
    '--email',
    'other@example.test',
  ]);
  expect(again.status).toBe(1);
  expect(again.stderr.trim()).toBe('A user with that username already exists.');
  const sameEmail = cli({ ...env, TENANTRY_PASSWORD: 'cli-secret-pass' }, [
    'createsuperuser',
    '--username',
    'ops2',
    '--email',
    'OPS@example.test',
  ]);
  expect(sameEmail.status).toBe(1);
  expect(sameEmail.stderr).toContain('A user with that email already exists.');
});

test('--help lists the commands and exits 0; a command has its own help', () => {
  const help = cli(env, ['--help']);
  expect(help.status).toBe(0);
  expect(help.stdout).toContain('createsuperuser');
  expect(help.stdout).toContain('rotate-keys');
  const one = cli(env, ['createsuperuser', '--help']);
  expect(one.status).toBe(0);
  expect(one.stdout).toContain('TENANTRY_PASSWORD');
  expect(cli(env, ['rotate-keys', '-h']).status).toBe(0);
});

test('usage errors exit 2 with one line and no stack trace', () => {
  const none = cli(env, []);
  expect(none.status).toBe(2);
  expect(none.stderr).toContain('createsuperuser');

  const unknown = cli(env, ['frobnicate']);
  expect(unknown.status).toBe(2);
  expect(unknown.stderr.trim().split('\n')).toEqual([expect.stringContaining('Unknown command "frobnicate"')]);

  for (const args of [
    ['createsuperuser', '--usrname', 'x'],
    ['rotate-keys', '--batch', '5'],
  ]) {
    const r = cli(env, args);
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Unknown option '--(usrname|batch)'/);
    noStack(r.stderr);
  }

  const missing = cli(env, ['createsuperuser', '--username', 'x']);
  expect(missing.status).toBe(2);
  expect(missing.stderr.trim()).toBe('--email is required');

  const badBatch = cli(env, ['rotate-keys', '--batch-size', '0']);
  expect(badBatch.status).toBe(2);
  expect(badBatch.stderr.trim()).toBe('--batch-size must be a positive whole number');

  // No password anywhere (stdin empty, not a terminal).
  const noPassword = cli(env, ['createsuperuser', '--username', 'x', '--email', 'x@example.test']);
  expect(noPassword.status).toBe(2);
  expect(noPassword.stderr).toContain('TENANTRY_PASSWORD');
});

test('createsuperuser applies the rules of POST /api/users/, with the same messages', async () => {
  const cases: Record<string, string>[] = [
    { username: 'bad name!', email: 'good@example.test', password: 'long-enough-pass' },
    { username: 'gooduser', email: 'not-an-email', password: 'long-enough-pass' },
    { username: 'gooduser', email: 'good@example.test', password: 'short' },
    { username: 'gooduser', email: 'good@example.test', password: 'x'.repeat(129) },
    { username: 'u'.repeat(151), email: 'good@example.test', password: 'long-enough-pass' },
  ];
  for (const body of cases) {
    const expected = restErrors(body);
    expect(Object.keys(expected)).toHaveLength(1);
    const [field, messages] = Object.entries(expected)[0];
    const r = cli({ ...env, TENANTRY_PASSWORD: body.password }, ['createsuperuser', '--username', body.username, '--email', body.email]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(`Invalid input: ${field}: ${messages.join(' ')}`);
  }
  expect(await storedUser('gooduser')).toBeUndefined();
});

test('the password comes from TENANTRY_PASSWORD, or the first line of piped stdin', async () => {
  const fromEnv = cli({ ...env, TENANTRY_PASSWORD: 'from-the-environment' }, [
    'createsuperuser',
    '--username',
    'envuser',
    '--email',
    'env@example.test',
  ]);
  expect(fromEnv.stderr).toBe('');
  expect(fromEnv.status).toBe(0);
  expect(await verifyPassword((await storedUser('envuser')).password_hash, 'from-the-environment')).toBe(true);

  const piped = cli(env, ['createsuperuser', '--username', 'pipeuser', '--email', 'pipe@example.test'], 'from-a-pipe-123\nignored\n');
  expect(piped.stderr).toBe('');
  expect(piped.status).toBe(0);
  expect(piped.stdout).not.toContain('from-a-pipe-123');
  expect(await verifyPassword((await storedUser('pipeuser')).password_hash, 'from-a-pipe-123')).toBe(true);
});

// util-linux `script` gives the CLI a pseudo-terminal; the prompt must not echo what is typed.
const hasScript = spawnSync('script', ['--version']).status === 0;
(hasScript ? test : test.skip)('on a terminal the password is prompted for twice, without echo', async () => {
  const command = [...ENTRY, 'createsuperuser', '--username', 'ttyuser', '--email', 'tty@example.test']
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { PATH: process.env.PATH, ...env, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const waitFor = async (text: string, from: number) => {
    const deadline = Date.now() + 30_000;
    while (!out.slice(from).includes(text)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no "${text}" in:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return out.length;
  };
  try {
    let at = await waitFor('Password: ', 0);
    child.stdin.write('typed-at-the-tty\r');
    at = await waitFor('Password (again): ', at);
    child.stdin.write('typed-at-the-tty\r');
    await waitFor('created', at);
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  expect(out).not.toContain('typed-at-the-tty');
  expect(await verifyPassword((await storedUser('ttyuser')).password_hash, 'typed-at-the-tty')).toBe(true);
});

test('an unreachable database is one line naming DATABASE_URL, exit 1', () => {
  const r = cli({ DATABASE_URL: 'postgresql://u:p@127.0.0.1:1/nothing', DATA_DIR: dataDir, TENANTRY_PASSWORD: 'long-enough-pass' }, [
    'createsuperuser',
    '--username',
    'nodb',
    '--email',
    'nodb@example.test',
  ]);
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/the database at DATABASE_URL does not answer/)]);
});
