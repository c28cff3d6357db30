// Key rotation on a real PostgreSQL: every value survives a rotation that also changes the
// master key, old versions are retired only when unused, and a value written by a "running
// server" (another keyring host on the same database) during rotation is not lost.
import type pg from 'pg';
import { createPool } from '../../subgraphs/core/db.js';
import { rotateKeys } from '../../subgraphs/secrets/key-rotation.js';
import { masterKeyId } from '../../subgraphs/secrets/keyring.js';
import { openValue, type SecretIdentity } from '../../subgraphs/secrets/secret-crypto.js';
import { createTestDatabase } from '../support/db.js';
import { hostFor, makeSite, newMasterKey, stored, updateSecret, writeSecret } from './secrets-crypto-fixtures.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 20);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

interface Written {
  rowId: number;
  id: SecretIdentity;
  value: unknown;
}

async function writeMany(host: ReturnType<typeof hostFor>, count: number): Promise<Written[]> {
  const out: Written[] = [];
  for (let s = 0; s < 2; s++) {
    const { siteId, appId, typeIds } = await makeSite(pool);
    for (let i = 0; i < count; i++) {
      const sensitivity = (['public', 'private', 'sensitive'] as const)[i % 3];
      const id: SecretIdentity = { siteId, appId: i % 2 ? appId : null, key: `key-${i}`, sensitivity };
      const value = { i, site: siteId, secret: `v-${siteId}-${i}` };
      out.push({ rowId: await writeSecret(host, typeIds, id, value), id, value });
    }
  }
  return out;
}

async function expectAllReadable(host: ReturnType<typeof hostFor>, written: Written[]): Promise<void> {
  for (const w of written) expect(await openValue(host, w.id, await stored(pool, w.rowId))).toEqual(w.value);
}

test('rotation with a master-key change keeps every value, then the old master key can be dropped', async () => {
  const oldKey = newMasterKey();
  const newKey = newMasterKey();
  const written = await writeMany(hostFor(pool, { SECRETS_MASTER_KEY: oldKey }), 25);
  const siteIds = [...new Set(written.map((w) => w.id.siteId))];

  const rotating = hostFor(pool, { SECRETS_MASTER_KEY: newKey, SECRETS_PREVIOUS_MASTER_KEYS: oldKey });
  const summary = await rotateKeys(rotating, { batchSize: 4 });
  const encrypted = written.filter((w) => w.id.sensitivity !== 'public').length;
  expect(summary).toEqual({ sites: 2, reencrypted: encrypted, rewrapped: 2, retired: 2, undecryptable: 0, skippedSites: [] });

  const { rows } = await pool.query(
    'SELECT site_id, version, master_key_id, retired_at IS NOT NULL AS retired FROM secret_data_keys WHERE site_id = ANY($1) ORDER BY site_id, version',
    [siteIds],
  );
  for (const siteId of siteIds) {
    expect(rows.filter((r) => r.site_id === siteId)).toEqual([
      { site_id: siteId, version: 1, master_key_id: masterKeyId(Buffer.from(newKey, 'base64')), retired: true },
      { site_id: siteId, version: 2, master_key_id: masterKeyId(Buffer.from(newKey, 'base64')), retired: false },
    ]);
  }
  const versions = await pool.query('SELECT DISTINCT key_version FROM secrets WHERE site_id = ANY($1) AND ciphertext IS NOT NULL', [
    siteIds,
  ]);
  expect(versions.rows).toEqual([{ key_version: 2 }]);

  // Only the new master key now: everything opens in a fresh process; the old key alone does not.
  await expectAllReadable(hostFor(pool, { SECRETS_MASTER_KEY: newKey }), written);
  const onlyOld = hostFor(pool, { SECRETS_MASTER_KEY: oldKey });
  const priv = written.find((w) => w.id.sensitivity === 'private')!;
  await expect(openValue(onlyOld, priv.id, await stored(pool, priv.rowId))).rejects.toMatchObject({ code: 'secret_undecryptable' });

  // A second plain rotation (same master key) moves everything to version 3.
  const again = await rotateKeys(hostFor(pool, { SECRETS_MASTER_KEY: newKey }));
  expect(again).toMatchObject({ sites: 2, reencrypted: encrypted, rewrapped: 0, retired: 2 });
  await expectAllReadable(hostFor(pool, { SECRETS_MASTER_KEY: newKey }), written);
});

test('a master-key change without the previous key configured fails clearly and changes nothing', async () => {
  const oldKey = newMasterKey();
  const written = await writeMany(hostFor(pool, { SECRETS_MASTER_KEY: oldKey }), 3);
  const before = await pool.query('SELECT id, ciphertext FROM secrets ORDER BY id');
  const summary = await rotateKeys(hostFor(pool, { SECRETS_MASTER_KEY: newMasterKey() }));
  expect(summary.skippedSites).toEqual(expect.arrayContaining([...new Set(written.map((w) => w.id.siteId))]));
  expect(summary.sites).toBe(0);
  const after = await pool.query('SELECT id, ciphertext FROM secrets ORDER BY id');
  expect(after.rows).toEqual(before.rows);
  await expectAllReadable(hostFor(pool, { SECRETS_MASTER_KEY: oldKey }), written);
});

test('values written by a running server during rotation survive', async () => {
  const key = newMasterKey();
  const server = hostFor(pool, { SECRETS_MASTER_KEY: key });
  const written = await writeMany(server, 60);
  const targets = written.filter((w) => w.id.sensitivity !== 'public');
  // The server keeps rewriting values (with its cached, soon-old data key version) while rotation runs.
  let stop = false;
  const writer = (async () => {
    let round = 0;
    while (!stop) {
      round++;
      for (const w of targets.slice(0, 10)) {
        w.value = { rewritten: round, key: w.id.key };
        await updateSecret(server, w.rowId, w.id, w.value);
      }
    }
    return round;
  })();
  let summary;
  try {
    summary = await rotateKeys(hostFor(pool, { SECRETS_MASTER_KEY: key }), { batchSize: 5 });
  } finally {
    stop = true;
  }
  const rounds = await writer;
  expect(rounds).toBeGreaterThan(0);
  expect(summary.undecryptable).toBe(0);
  await expectAllReadable(hostFor(pool, { SECRETS_MASTER_KEY: key }), written);
  await expectAllReadable(server, written);
  // An old version still used by a concurrently written value stays unretired (readable).
  const used = await pool.query(
    `SELECT DISTINCT k.version, k.retired_at IS NULL AS active FROM secrets s JOIN secret_data_keys k
      ON k.site_id = s.site_id AND k.version = s.key_version WHERE s.id = ANY($1)`,
    [targets.map((t) => t.rowId)],
  );
  expect(used.rows.length).toBeGreaterThan(0);
  // A later rotation moves the stragglers and retires every old version.
  await rotateKeys(hostFor(pool, { SECRETS_MASTER_KEY: key }));
  await expectAllReadable(hostFor(pool, { SECRETS_MASTER_KEY: key }), written);
  const active = await pool.query(
    'SELECT site_id, count(*)::int AS n FROM secret_data_keys WHERE retired_at IS NULL AND site_id = ANY($1) GROUP BY site_id',
    [[...new Set(written.map((w) => w.id.siteId))]],
  );
  expect(active.rows.map((r) => r.n)).toEqual([1, 1]);
});
