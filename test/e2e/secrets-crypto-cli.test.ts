// `npm run cli -- rotate-keys` as an operator runs it, including a master-key change:
// new SECRETS_MASTER_KEY + the old one in SECRETS_PREVIOUS_MASTER_KEYS, rotate, drop the old one.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { createPool } from '../../subgraphs/core/db.js';
import { openValue } from '../../subgraphs/secrets/secret-crypto.js';
import { createTestDatabase } from '../support/db.js';
import { hostFor, makeSite, newMasterKey, stored, writeSecret } from '../integration/secrets-crypto-fixtures.js';

const cli = (env: Record<string, string>, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let dataDir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 5);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-rotate-'));
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('rotate-keys with a master-key change keeps every value and prints no value', async () => {
  const oldKey = newMasterKey();
  const newKey = newMasterKey();
  const writer = hostFor(pool, { SECRETS_MASTER_KEY: oldKey });
  const { siteId, appId, typeIds } = await makeSite(pool);
  const rows = [
    { id: { siteId, appId: null, key: 'db-password', sensitivity: 'private' as const }, value: 'CLI-MARKER-private' },
    { id: { siteId, appId, key: 'stripe', sensitivity: 'sensitive' as const }, value: { key: 'CLI-MARKER-sensitive' } },
    { id: { siteId, appId: null, key: 'site-name', sensitivity: 'public' as const }, value: 'hello' },
  ];
  const ids = [];
  for (const r of rows) ids.push(await writeSecret(writer, typeIds, r.id, r.value));

  const base = { DATABASE_URL: db.url, DATA_DIR: dataDir };
  // Without the old key the operator gets a clear failure and nothing changes.
  const refused = cli({ ...base, SECRETS_MASTER_KEY: newKey }, 'rotate-keys');
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain('SECRETS_PREVIOUS_MASTER_KEYS');

  const run = cli({ ...base, SECRETS_MASTER_KEY: newKey, SECRETS_PREVIOUS_MASTER_KEYS: oldKey }, 'rotate-keys', '--batch-size', '1');
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toContain('1 site(s), 2 value(s) re-encrypted, 1 data key(s) re-wrapped, 1 old version(s) retired');
  expect(run.stdout + run.stderr).not.toMatch(/CLI-MARKER/);

  // The old key is dropped: a process with only the new key reads everything.
  const reader = hostFor(pool, { SECRETS_MASTER_KEY: newKey });
  for (const [i, r] of rows.entries()) expect(await openValue(reader, r.id, await stored(pool, ids[i]))).toEqual(r.value);

  expect(cli(base, 'rotate-keys', '--batch-size', '0').status).toBe(2);
});
