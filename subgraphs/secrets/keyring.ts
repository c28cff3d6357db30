// Per-site data keys wrapped by the master key (envelope encryption). The master key comes
// from SECRETS_MASTER_KEY or, unset, from DATA_DIR/keys/secrets-master.key (generated once).
// Unwrapped data keys live only in this process's memory and are never logged.
import crypto from 'node:crypto';
import path from 'node:path';
import type { Platform } from '../core/platform.js';
import { errors } from '../core/errors.js';
import { withTransaction } from '../core/db.js';
import { readOrCreateKeyFile } from '../core/keys.js';
import { dataKeyRepository, type DataKeyRow, type Queryable } from './data-key.repository.js';

export type KeyringHost = Pick<Platform, 'config' | 'log' | 'pool'>;

interface MasterKey {
  id: string;
  key: Buffer;
}

interface KeyringState {
  current: MasterKey;
  /** Current and previous master keys by id, for unwrapping. */
  byId: Map<string, Buffer>;
  /** `${siteId}:${version}` → unwrapped data key. */
  dataKeys: Map<string, Buffer>;
  /** siteId → the version new values are sealed with, re-read after a short while so a rotation run elsewhere is picked up. */
  currentVersion: Map<number, { version: number; until: number }>;
}

const CURRENT_VERSION_TTL_MS = 30_000;
const states = new WeakMap<object, KeyringState>();

/** Public id of a master key, stored beside each wrapped data key; reveals nothing of the key. */
export const masterKeyId = (key: Buffer): string => crypto.createHash('sha256').update(key).digest('hex').slice(0, 16);

function state(host: KeyringHost): KeyringState {
  let s = states.get(host);
  if (s) return s;
  const { config, log } = host;
  const encoded =
    config.secretsMasterKey ??
    readOrCreateKeyFile(
      path.join(config.dataDir, 'keys', 'secrets-master.key'),
      () => crypto.randomBytes(32).toString('base64'),
      log,
    ).trim();
  const key = Buffer.from(encoded, 'base64');
  if (key.length !== 32) throw errors.secretUndecryptable();
  if (!config.secretsMasterKey) log.warn('SECRETS_MASTER_KEY is not set: using the key file in DATA_DIR/keys; back it up');
  const current = { id: masterKeyId(key), key };
  const byId = new Map<string, Buffer>([[current.id, key]]);
  for (const prev of config.secretsPreviousMasterKeys ?? []) {
    const k = Buffer.from(prev, 'base64');
    if (!byId.has(masterKeyId(k))) byId.set(masterKeyId(k), k);
  }
  s = { current, byId, dataKeys: new Map(), currentVersion: new Map() };
  states.set(host, s);
  return s;
}

export const currentMasterKeyId = (host: KeyringHost): string => state(host).current.id;

// The wrapped key is bound to its site and version, so a row copied elsewhere does not open.
const wrapAad = (siteId: number, version: number) => Buffer.from(`secret-data-key|site:${siteId}|v:${version}`);

/** Wraps a data key with the current master key: iv (12) | tag (16) | ciphertext. */
export function wrapDataKey(host: KeyringHost, siteId: number, version: number, raw: Buffer): { wrapped: Buffer; masterKeyId: string } {
  const { current } = state(host);
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', current.key, iv);
  cipher.setAAD(wrapAad(siteId, version));
  const ct = Buffer.concat([cipher.update(raw), cipher.final()]);
  return { wrapped: Buffer.concat([iv, cipher.getAuthTag(), ct]), masterKeyId: current.id };
}

/** Unwraps with the master key the row names; a missing or wrong key is a clear error. */
export function unwrapDataKey(host: KeyringHost, row: DataKeyRow): Buffer {
  const master = state(host).byId.get(row.masterKeyId);
  if (!master || row.wrappedKey.length < 28 + 32) throw errors.secretUndecryptable();
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', master, row.wrappedKey.subarray(0, 12));
    decipher.setAAD(wrapAad(row.siteId, row.version));
    decipher.setAuthTag(row.wrappedKey.subarray(12, 28));
    return Buffer.concat([decipher.update(row.wrappedKey.subarray(28)), decipher.final()]);
  } catch {
    throw errors.secretUndecryptable();
  }
}

function remember(host: KeyringHost, row: DataKeyRow): Buffer {
  const key = unwrapDataKey(host, row);
  state(host).dataKeys.set(`${row.siteId}:${row.version}`, key);
  return key;
}

/** The data key of one version: from memory when seen before (no query), else read and unwrapped. */
export async function dataKey(host: KeyringHost, siteId: number, version: number, db: Queryable = host.pool): Promise<Buffer> {
  const cached = state(host).dataKeys.get(`${siteId}:${version}`);
  if (cached) return cached;
  const row = await dataKeyRepository.find(db, siteId, version);
  if (!row) throw errors.secretUndecryptable();
  return remember(host, row);
}

/** The site's current data key, created on first use (once per site, see createFirstDataKey). */
/** Namespace of the advisory locks that serialize a site's first data-key creation. */
const DATA_KEY_LOCK = 727_200_001;

export async function currentDataKey(host: KeyringHost, siteId: number): Promise<{ version: number; key: Buffer }> {
  const s = state(host);
  const hit = s.currentVersion.get(siteId);
  if (hit && hit.until > Date.now()) {
    const key = s.dataKeys.get(`${siteId}:${hit.version}`);
    if (key) return { version: hit.version, key };
  }
  const row = (await dataKeyRepository.current(host.pool, siteId)) ?? (await createFirstDataKey(host, siteId));
  const key = s.dataKeys.get(`${siteId}:${row.version}`) ?? remember(host, row);
  s.currentVersion.set(siteId, { version: row.version, until: Date.now() + CURRENT_VERSION_TTL_MS });
  return { version: row.version, key };
}

/**
 * The site's first data key. Concurrent first writers (in this or another process) are
 * serialized by a transaction-scoped advisory lock on the site, so exactly one creates it and
 * the others read it: checking and inserting must be one step, or a writer that reads after
 * another's insert would create a second version.
 */
async function createFirstDataKey(host: KeyringHost, siteId: number): Promise<DataKeyRow> {
  const row = await withTransaction(host.pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [DATA_KEY_LOCK, siteId]);
    const current = await dataKeyRepository.current(client, siteId);
    if (current) return current;
    const version = (await dataKeyRepository.maxVersion(client, siteId)) + 1;
    const { wrapped, masterKeyId: id } = wrapDataKey(host, siteId, version, crypto.randomBytes(32));
    await dataKeyRepository.insert(client, siteId, version, wrapped, id);
    return dataKeyRepository.current(client, siteId);
  });
  if (!row) throw errors.unavailable("Could not create the site's secrets data key; try again.");
  return row;
}

/** Forgets the cached current version of a site (after this process rotated it). */
export function forgetCurrentVersion(host: KeyringHost, siteId: number): void {
  state(host).currentVersion.delete(siteId);
}
