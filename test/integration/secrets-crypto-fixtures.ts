// Shared setup for the secrets crypto tests: a keyring host (config + log + pool) per master
// key over one test database, and rows written directly through sealValue + SQL.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { loadConfig } from '../../subgraphs/core/config.js';
import { createLogger } from '../../subgraphs/core/logger.js';
import type { KeyringHost } from '../../subgraphs/secrets/keyring.js';
import { sealValue, type SealedValue, type SecretIdentity } from '../../subgraphs/secrets/secret-crypto.js';

export const newMasterKey = () => crypto.randomBytes(32).toString('base64');

export function hostFor(pool: pg.Pool, env: Record<string, string>, logs: string[] = []): KeyringHost {
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-crypto-'));
  const config = loadConfig({ ...env, DATA_DIR: dataDir });
  const log = createLogger('info', { write: (line: string) => void logs.push(line) });
  return { config, log, pool };
}

let counter = 0;

/** An organization and a site (with one app), inserted with SQL. */
export async function makeSite(pool: pg.Pool): Promise<{ siteId: number; appId: number; typeIds: Record<string, number> }> {
  const n = ++counter + crypto.randomBytes(3).toString('hex');
  const org = (await pool.query('INSERT INTO organizations (slug, name) VALUES ($1, $1) RETURNING id', [`org-${n}`])).rows[0];
  const site = (
    await pool.query('INSERT INTO sites (slug, name, organization_id, schema_name) VALUES ($1, $1, $2, $3) RETURNING id', [
      `site-${n}`,
      org.id,
      `site_${n}`,
    ])
  ).rows[0];
  const app = (await pool.query('INSERT INTO apps (site_id, slug, name) VALUES ($1, $2, $2) RETURNING id', [site.id, `app-${n}`])).rows[0];
  const typeIds: Record<string, number> = {};
  for (const level of ['public', 'private', 'sensitive']) {
    const t = await pool.query('INSERT INTO secret_types (site_id, slug, name, sensitivity_level) VALUES ($1, $2, $2, $2) RETURNING id', [
      site.id,
      level,
    ]);
    typeIds[level] = t.rows[0].id;
  }
  return { siteId: site.id, appId: app.id, typeIds };
}

/** Seals a value and inserts it as a secret row; returns the row id. */
export async function writeSecret(host: KeyringHost, typeIds: Record<string, number>, id: SecretIdentity, value: unknown): Promise<number> {
  const s = await sealValue(host, id, value);
  const { rows } = await host.pool.query(
    `INSERT INTO secrets (site_id, app_id, key, secret_type_id, value_plain, ciphertext, iv, auth_tag, key_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    [
      id.siteId,
      id.appId,
      id.key,
      typeIds[id.sensitivity],
      id.sensitivity === 'public' ? JSON.stringify(s.valuePlain) : null,
      s.ciphertext,
      s.iv,
      s.authTag,
      s.keyVersion,
    ],
  );
  return rows[0].id;
}

export async function updateSecret(host: KeyringHost, rowId: number, id: SecretIdentity, value: unknown): Promise<void> {
  const s = await sealValue(host, id, value);
  await host.pool.query('UPDATE secrets SET ciphertext = $2, iv = $3, auth_tag = $4, key_version = $5 WHERE id = $1', [
    rowId,
    s.ciphertext,
    s.iv,
    s.authTag,
    s.keyVersion,
  ]);
}

/** The stored form of a row, as the secrets repository would hand it to openValue. */
export async function stored(pool: pg.Pool, rowId: number): Promise<SealedValue> {
  const { rows } = await pool.query('SELECT value_plain, ciphertext, iv, auth_tag, key_version FROM secrets WHERE id = $1', [rowId]);
  const r = rows[0];
  return { valuePlain: r.value_plain, ciphertext: r.ciphertext, iv: r.iv, authTag: r.auth_tag, keyVersion: r.key_version };
}
