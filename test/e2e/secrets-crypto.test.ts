// Encryption at rest through the REST API: values written over HTTP (both tiers, private and
// sensitive, created and replaced) appear nowhere in the raw database or the logs, and a
// sensitive ciphertext copied to another row answers a clear error instead of the value.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { newMasterKey } from '../integration/secrets-crypto-fixtures.js';

const HOST = 'vault.crypto.test';
let t: TestApp;
let token: string;
const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const call = (method: string, url: string, body?: unknown) => t.call(method, url, { token, host: HOST, body });

beforeAll(async () => {
  t = await startTestApp({ SECRETS_MASTER_KEY: newMasterKey() });
  const owner = await t.createUser();
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'crypto-org', owner.id);
  const site = await insertSite(t.platform, org.id, 'vault', HOST);
  await insertApp(t.platform, site.id, 'web');
  for (const level of ['private', 'sensitive']) {
    const res = await call('POST', '/api/secret-types/', { name: `Crypto ${level}`, sensitivity_level: level, schema: { type: 'object' } });
    expect(res.status).toBe(201);
  }
});
afterAll(() => t?.close());

test('no private or sensitive value written over REST is readable in the raw database or the logs', async () => {
  const markers: string[] = [];
  for (const level of ['private', 'sensitive']) {
    for (const app of [undefined, 'web']) {
      const marker = `RESTMARK-${level}-${app ?? 'site'}-7f3q`;
      const replaced = `${marker}-replaced`;
      markers.push(marker, replaced);
      const key = `k-${level}`;
      const created = await call('POST', '/api/secrets/', {
        key,
        secret_type: `crypto-${level}`,
        value: { secret: marker },
        ...(app ? { app } : {}),
      });
      expect(created.status).toBe(201);
      const url = `/api/secrets/${key}/${app ? `?app=${app}` : ''}`;
      expect((await call('GET', url)).body.value).toEqual({ secret: marker });
      const put = await call('PUT', url, { key, secret_type: `crypto-${level}`, value: { secret: replaced } });
      expect(put.status).toBe(200);
      expect((await call('GET', url)).body.value).toEqual({ secret: replaced });
    }
  }
  const dump: string[] = [];
  for (const table of ['secrets', 'secret_data_keys', 'secret_history']) {
    dump.push(...(await q(`SELECT t::text AS row FROM ${table} t`)).map((r) => r.row as string));
  }
  expect(dump.join('\n')).toContain('k-sensitive'); // the dump covers the rows written above
  const raw = dump.join('\n').toLowerCase();
  const logs = t.logs.join('\n');
  for (const m of markers) {
    expect(raw).not.toContain(m.toLowerCase());
    expect(raw).not.toContain(Buffer.from(m).toString('hex'));
    expect(logs).not.toContain(m);
  }
});

test('a sensitive ciphertext copied onto another key answers a clear 500, never the value', async () => {
  expect(
    (await call('POST', '/api/secrets/', { key: 'source', secret_type: 'crypto-sensitive', value: { v: 'source-value' } })).status,
  ).toBe(201);
  expect(
    (await call('POST', '/api/secrets/', { key: 'target', secret_type: 'crypto-sensitive', value: { v: 'target-value' } })).status,
  ).toBe(201);
  await q(
    `UPDATE secrets d SET ciphertext = s.ciphertext, iv = s.iv, auth_tag = s.auth_tag, key_version = s.key_version
       FROM secrets s WHERE s.key = 'source' AND s.app_id IS NULL AND d.key = 'target' AND d.app_id IS NULL`,
  );
  const res = await call('GET', '/api/secrets/target/');
  expect(res.status).toBe(500);
  expect(res.text).toMatch(/cannot be decrypted with the configured master key/);
  expect(res.text).not.toContain('source-value');
  expect((await call('GET', '/api/secrets/source/')).body.value).toEqual({ v: 'source-value' });
});
