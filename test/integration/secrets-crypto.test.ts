// sealValue/openValue and the per-site data keys on a real PostgreSQL: round trips, the AAD
// binding, wrong or missing master keys, race-safe key creation, no query on a cached key,
// and a raw read of every secrets table that must find no private or sensitive value.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { createPool } from '../../subgraphs/core/db.js';
import { openValue, sealValue, type SecretIdentity } from '../../subgraphs/secrets/secret-crypto.js';
import { createTestDatabase } from '../support/db.js';
import { hostFor, makeSite, newMasterKey, stored, writeSecret } from './secrets-crypto-fixtures.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const KEY_A = newMasterKey();

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 20);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const undecryptable = expect.objectContaining({
  status: 500,
  code: 'secret_undecryptable',
  message: expect.stringMatching(/cannot be decrypted with the configured master key/),
});

test('round trips for every sensitivity, at site and app tier', async () => {
  const host = hostFor(pool, { SECRETS_MASTER_KEY: KEY_A });
  const { siteId, appId, typeIds } = await makeSite(pool);
  const values = [{ nested: { a: [1, 2, 'x'] }, n: 3.5 }, 'plain string', 42, null, true, 'ünïcødé ✓'];
  for (const sensitivity of ['public', 'private', 'sensitive'] as const) {
    for (const tier of [null, appId]) {
      for (const [i, value] of values.entries()) {
        const id: SecretIdentity = { siteId, appId: tier, key: `k-${sensitivity}-${tier}-${i}`, sensitivity };
        const rowId = await writeSecret(host, typeIds, id, value);
        const s = await stored(pool, rowId);
        if (sensitivity === 'public') {
          expect(s).toMatchObject({ ciphertext: null, keyVersion: null });
        } else {
          expect(s.valuePlain).toBeNull();
          expect(s.iv).toHaveLength(12);
          expect(s.authTag).toHaveLength(16);
          expect(s.keyVersion).toBe(1);
        }
        // A fresh process (empty caches) reads it back too.
        expect(await openValue(hostFor(pool, { SECRETS_MASTER_KEY: KEY_A }), id, s)).toEqual(value);
        expect(await openValue(host, id, s)).toEqual(value);
      }
    }
  }
  const keys = await pool.query('SELECT version, master_key_id, length(wrapped_key) AS len FROM secret_data_keys WHERE site_id = $1', [
    siteId,
  ]);
  expect(keys.rows).toEqual([{ version: 1, master_key_id: expect.stringMatching(/^[0-9a-f]{16}$/), len: 60 }]);
});

test('a ciphertext copied to another key, tier or site does not open', async () => {
  const host = hostFor(pool, { SECRETS_MASTER_KEY: KEY_A });
  const a = await makeSite(pool);
  const b = await makeSite(pool);
  const id: SecretIdentity = { siteId: a.siteId, appId: null, key: 'stripe', sensitivity: 'sensitive' };
  const sealed = await sealValue(host, id, { token: 'sk_live_123' });
  expect(await openValue(host, id, sealed)).toEqual({ token: 'sk_live_123' });
  await expect(openValue(host, { ...id, key: 'other' }, sealed)).rejects.toEqual(undecryptable);
  await expect(openValue(host, { ...id, appId: a.appId }, sealed)).rejects.toEqual(undecryptable);
  await expect(openValue(host, { ...id, siteId: b.siteId }, sealed)).rejects.toEqual(undecryptable);
  await expect(openValue(host, { ...id, sensitivity: 'private' }, sealed)).rejects.toEqual(undecryptable);
  // Another site's version 1 exists too: its data key is different, so site binding holds twice.
  await sealValue(host, { ...id, siteId: b.siteId }, 'x');
  await expect(openValue(host, { ...id, siteId: b.siteId }, sealed)).rejects.toEqual(undecryptable);
  const priv: SecretIdentity = { siteId: a.siteId, appId: a.appId, key: 'db', sensitivity: 'private' };
  const sealedPriv = await sealValue(host, priv, 'pw');
  await expect(openValue(host, { ...priv, siteId: b.siteId }, sealedPriv)).rejects.toEqual(undecryptable);
  // A tampered ciphertext is an error, never other data.
  const tampered = { ...sealedPriv, ciphertext: Buffer.from(sealedPriv.ciphertext!.map((x, i) => (i === 0 ? x ^ 1 : x))) };
  await expect(openValue(host, priv, tampered)).rejects.toEqual(undecryptable);
});

test('a wrong or missing master key is a clear error', async () => {
  const { siteId } = await makeSite(pool);
  const id: SecretIdentity = { siteId, appId: null, key: 'k', sensitivity: 'private' };
  const sealed = await sealValue(hostFor(pool, { SECRETS_MASTER_KEY: KEY_A }), id, 'v');
  await expect(openValue(hostFor(pool, { SECRETS_MASTER_KEY: newMasterKey() }), id, sealed)).rejects.toEqual(undecryptable);
  // Unset: a fresh key file is generated, which does not open keys wrapped by KEY_A.
  const logs: string[] = [];
  await expect(openValue(hostFor(pool, {}, logs), id, sealed)).rejects.toEqual(undecryptable);
  // A wrapped key tampered with in the database (same master key id) fails as well.
  await pool.query(
    'UPDATE secret_data_keys SET wrapped_key = set_byte(wrapped_key, 40, get_byte(wrapped_key, 40) # 1) WHERE site_id = $1',
    [siteId],
  );
  await expect(openValue(hostFor(pool, { SECRETS_MASTER_KEY: KEY_A }), id, sealed)).rejects.toEqual(undecryptable);
  expect(logs.join('\n')).toMatch(/generated a new key file/);
});

test('without SECRETS_MASTER_KEY the key is generated once into DATA_DIR/keys (0600) and reused', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-mk-'));
  const { siteId } = await makeSite(pool);
  const id: SecretIdentity = { siteId, appId: null, key: 'k', sensitivity: 'sensitive' };
  const logs: string[] = [];
  const sealed = await sealValue(hostFor(pool, { DATA_DIR: dataDir }, logs), id, 'kept');
  const file = path.join(dataDir, 'keys', 'secrets-master.key');
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
  expect(logs.some((l) => JSON.parse(l).level === 'warn')).toBe(true);
  expect(await openValue(hostFor(pool, { DATA_DIR: dataDir }), id, sealed)).toBe('kept');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('concurrent first use creates exactly one data key, and every value opens', async () => {
  const { siteId } = await makeSite(pool);
  const hosts = Array.from({ length: 8 }, () => hostFor(pool, { SECRETS_MASTER_KEY: KEY_A }));
  const ids = hosts.map((_, i): SecretIdentity => ({ siteId, appId: null, key: `k${i}`, sensitivity: 'private' }));
  const sealed = await Promise.all(hosts.map((h, i) => sealValue(h, ids[i], `value-${i}`)));
  const { rows } = await pool.query('SELECT version FROM secret_data_keys WHERE site_id = $1', [siteId]);
  expect(rows).toEqual([{ version: 1 }]);
  const reader = hostFor(pool, { SECRETS_MASTER_KEY: KEY_A });
  for (const [i, s] of sealed.entries()) expect(await openValue(reader, ids[i], s)).toBe(`value-${i}`);
});

test('openValue with a cached data key runs no query', async () => {
  const { siteId } = await makeSite(pool);
  const counting = createPool(db.url, 2);
  let queries = 0;
  const original = counting.query.bind(counting);
  (counting as { query: unknown }).query = (...args: unknown[]) => {
    queries++;
    return (original as (...a: unknown[]) => unknown)(...args);
  };
  const host = hostFor(counting, { SECRETS_MASTER_KEY: KEY_A });
  const id: SecretIdentity = { siteId, appId: null, key: 'hot', sensitivity: 'private' };
  const sealed = await sealValue(host, id, { v: 1 });
  const before = queries;
  const started = process.hrtime.bigint();
  for (let i = 0; i < 1000; i++) await openValue(host, id, sealed);
  const perOpenUs = Number(process.hrtime.bigint() - started) / 1000 / 1000;
  expect(queries).toBe(before);
  expect(perOpenUs).toBeLessThan(500);
  await counting.end();
});

test('the raw database holds no private or sensitive value in plain text', async () => {
  const host = hostFor(pool, { SECRETS_MASTER_KEY: KEY_A });
  const { siteId, appId, typeIds } = await makeSite(pool);
  const markers: string[] = [];
  for (const sensitivity of ['private', 'sensitive'] as const) {
    for (const tier of [null, appId]) {
      const marker = `MARKER-${sensitivity}-${tier ?? 'site'}-zq81x`;
      markers.push(marker);
      await writeSecret(
        host,
        typeIds,
        { siteId, appId: tier, key: `raw-${sensitivity}-${tier}`, sensitivity },
        { password: marker, list: [marker] },
      );
    }
  }
  const publicMarker = 'PUBLIC-MARKER-visible';
  await writeSecret(host, typeIds, { siteId, appId: null, key: 'raw-public', sensitivity: 'public' }, publicMarker);
  const dump: string[] = [];
  for (const table of ['secrets', 'secret_data_keys', 'secret_history']) {
    const { rows } = await pool.query(`SELECT t::text AS row FROM ${table} t`);
    dump.push(...rows.map((r) => r.row as string));
  }
  const text = dump.join('\n');
  expect(text).toContain(publicMarker); // the dump does show stored values: the check is real
  for (const m of markers) {
    expect(text).not.toContain(m);
    expect(text.toLowerCase()).not.toContain(Buffer.from(m).toString('hex'));
    expect(text).not.toContain(Buffer.from(m).toString('base64').slice(0, 16));
  }
});
