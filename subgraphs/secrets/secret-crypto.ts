// Sealing and opening secret values. Public values stay plain JSON; private and sensitive ones
// are AES-256-GCM encrypted with the site's current data key (see keyring.ts). The additional
// authenticated data binds each ciphertext to where it belongs, so a copied ciphertext fails
// to open instead of yielding another secret's value.
import crypto from 'node:crypto';
import type { Platform } from '../core/platform.js';
import { errors } from '../core/errors.js';
import { currentDataKey, dataKey, type KeyringHost } from './keyring.js';
import type { Queryable } from './data-key.repository.js';

export interface SecretIdentity {
  siteId: number;
  appId: number | null;
  key: string;
  sensitivity: 'public' | 'private' | 'sensitive';
}

export interface SealedValue {
  valuePlain: unknown | null;
  ciphertext: Buffer | null;
  iv: Buffer | null;
  authTag: Buffer | null;
  keyVersion: number | null;
}

/**
 * private: bound to the site. sensitive: also to the tier (app id or 'site') and the key.
 * Private values are deliberately not bound to their key so the secrets service can rename
 * or move them between tiers of one site without re-encrypting.
 */
export function secretAad(id: SecretIdentity): Buffer {
  const base = `secret|site:${id.siteId}`;
  if (id.sensitivity !== 'sensitive') return Buffer.from(`${base}|private`);
  return Buffer.from(`${base}|sensitive|tier:${id.appId ?? 'site'}|key:${JSON.stringify(id.key)}`);
}

/** Encrypts with a given data key; used by sealValue and by key rotation. */
export function encryptWith(dataKeyBytes: Buffer, version: number, id: SecretIdentity, value: unknown): SealedValue {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', dataKeyBytes, iv);
  cipher.setAAD(secretAad(id));
  const plaintext = Buffer.from(JSON.stringify(value ?? null), 'utf8');
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { valuePlain: null, ciphertext, iv, authTag: cipher.getAuthTag(), keyVersion: version };
}

/** Decrypts with a given data key; any failure is the clear `secret_undecryptable` error. */
export function decryptWith(dataKeyBytes: Buffer, id: SecretIdentity, stored: SealedValue): unknown {
  if (!stored.ciphertext || !stored.iv || !stored.authTag) throw errors.secretUndecryptable();
  let text: string;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', dataKeyBytes, stored.iv);
    decipher.setAAD(secretAad(id));
    decipher.setAuthTag(stored.authTag);
    text = Buffer.concat([decipher.update(stored.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw errors.secretUndecryptable();
  }
  return JSON.parse(text);
}

export async function sealValue(platform: Platform | KeyringHost, id: SecretIdentity, value: unknown): Promise<SealedValue> {
  if (id.sensitivity === 'public') {
    return { valuePlain: value ?? null, ciphertext: null, iv: null, authTag: null, keyVersion: null };
  }
  const { version, key } = await currentDataKey(platform, id.siteId);
  return encryptWith(key, version, id, value);
}

/**
 * Opens a stored value. With the data key already in memory this runs no query. `db` lets a
 * caller inside a transaction read a data key it has just created.
 */
export async function openValue(
  platform: Platform | KeyringHost,
  id: SecretIdentity,
  stored: SealedValue,
  db?: Queryable,
): Promise<unknown> {
  // Public values are returned as stored (a row sealed while its type was public stays readable).
  if (stored.ciphertext === null || stored.ciphertext === undefined) return stored.valuePlain;
  if (stored.keyVersion === null || stored.keyVersion === undefined) throw errors.secretUndecryptable();
  const key = await dataKey(platform, id.siteId, stored.keyVersion, db);
  return decryptWith(key, id, stored);
}
