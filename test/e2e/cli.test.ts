// `npm run cli -- createsuperuser` against a real database, as an operator runs it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase } from '../support/db.js';

const cli = (env: Record<string, string>, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-cli-'));
});
afterAll(async () => {
  await db.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('createsuperuser creates a staff superuser with an argon2id hash, and refuses a duplicate', async () => {
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir };
  const ok = cli(env, 'createsuperuser', '--username', 'ops', '--password', 'cli-secret-pass', '--email', 'ops@example.test');
  expect(ok.stderr).toBe('');
  expect(ok.status).toBe(0);
  expect(ok.stdout).toContain('Superuser "ops" created');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const { rows } = await client.query('SELECT is_staff, is_superuser, email, password_hash FROM users WHERE username = $1', ['ops']);
  await client.end();
  expect(rows[0]).toMatchObject({ is_staff: true, is_superuser: true, email: 'ops@example.test' });
  expect(rows[0].password_hash).toMatch(/^\$argon2id\$/);

  const again = cli(env, 'createsuperuser', '--username', 'ops', '--password', 'cli-secret-pass');
  expect(again.status).toBe(1);
  expect(again.stderr).toContain('already exists');
});

test('usage errors exit 2 with the list of commands', () => {
  const env = { DATABASE_URL: db.url, DATA_DIR: dataDir };
  expect(cli(env).status).toBe(2);
  const unknown = cli(env, 'frobnicate');
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toContain('createsuperuser');
  const missing = cli(env, 'createsuperuser', '--username', 'x');
  expect(missing.status).toBe(2);
  expect(missing.stderr).toContain('--password');
  const short = cli(env, 'createsuperuser', '--username', 'y', '--password', 'short');
  expect(short.status).toBe(1);
  expect(short.stderr).toContain('8 characters');
});
