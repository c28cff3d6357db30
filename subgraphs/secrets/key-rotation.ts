// `rotate-keys`: online rotation of the per-site data keys, and re-wrapping of data keys that
// a previous master key wrapped. Short transactions with row locks, so a running server keeps
// reading and writing secrets meanwhile; old data key versions stay readable until no secret
// uses them, so a value written concurrently with an old version is never lost.
import crypto from 'node:crypto';
import { isAppError } from '../core/errors.js';
import { withTransaction } from '../core/db.js';
import { dataKeyRepository } from './data-key.repository.js';
import { currentMasterKeyId, dataKey, forgetCurrentVersion, unwrapDataKey, wrapDataKey, type KeyringHost } from './keyring.js';
import { decryptWith, encryptWith, type SecretIdentity } from './secret-crypto.js';

export interface RotationSummary {
  sites: number;
  reencrypted: number;
  rewrapped: number;
  retired: number;
  /** Values no configured master key opens; left untouched (their old key version is kept). */
  undecryptable: number;
  /** Sites skipped because a data key of theirs opens with no configured master key. */
  skippedSites: number[];
}

const BATCH_SQL = `
  SELECT s.id, s.app_id, s.key, t.sensitivity_level, s.ciphertext, s.iv, s.auth_tag, s.key_version
    FROM secrets s JOIN secret_types t ON t.id = s.secret_type_id
   WHERE s.site_id = $1 AND s.ciphertext IS NOT NULL AND s.key_version <> $2 AND s.id > $3
   ORDER BY s.id LIMIT $4
     FOR UPDATE OF s`;

/** Re-wraps with the current master key every data key of the site that another master key wrapped. */
async function rewrapSite(host: KeyringHost, siteId: number): Promise<number> {
  const currentId = currentMasterKeyId(host);
  let n = 0;
  for (const row of await dataKeyRepository.listForSite(host.pool, siteId)) {
    if (row.masterKeyId === currentId) continue;
    const raw = unwrapDataKey(host, row); // secret_undecryptable when the old master key is not configured
    const { wrapped, masterKeyId } = wrapDataKey(host, siteId, row.version, raw);
    await dataKeyRepository.rewrap(host.pool, row.id, row.masterKeyId, wrapped, masterKeyId);
    n++;
  }
  return n;
}

async function newVersion(host: KeyringHost, siteId: number): Promise<number> {
  for (;;) {
    const version = (await dataKeyRepository.maxVersion(host.pool, siteId)) + 1;
    const { wrapped, masterKeyId } = wrapDataKey(host, siteId, version, crypto.randomBytes(32));
    if (await dataKeyRepository.insert(host.pool, siteId, version, wrapped, masterKeyId)) return version;
  }
}

/** One pass over the site's values not yet on `version`, a locked batch per transaction. */
async function reencryptPass(
  host: KeyringHost,
  siteId: number,
  version: number,
  batchSize: number,
  summary: RotationSummary,
  failed: Set<number>,
): Promise<void> {
  const newKey = await dataKey(host, siteId, version);
  let lastId = 0;
  for (;;) {
    const count = await withTransaction(host.pool, async (client) => {
      const { rows } = await client.query(BATCH_SQL, [siteId, version, lastId, batchSize]);
      for (const r of rows) {
        lastId = r.id;
        const id: SecretIdentity = { siteId, appId: r.app_id, key: r.key, sensitivity: r.sensitivity_level };
        let value: unknown;
        try {
          value = decryptWith(await dataKey(host, siteId, r.key_version, client), id, {
            valuePlain: null,
            ciphertext: r.ciphertext,
            iv: r.iv,
            authTag: r.auth_tag,
            keyVersion: r.key_version,
          });
        } catch (e) {
          if (!isAppError(e)) throw e;
          failed.add(r.id);
          continue;
        }
        const sealed = encryptWith(newKey, version, id, value);
        await client.query('UPDATE secrets SET ciphertext = $2, iv = $3, auth_tag = $4, key_version = $5 WHERE id = $1', [
          r.id,
          sealed.ciphertext,
          sealed.iv,
          sealed.authTag,
          version,
        ]);
        summary.reencrypted++;
      }
      return rows.length;
    });
    if (count < batchSize) return;
  }
}

export async function rotateKeys(host: KeyringHost, options: { batchSize?: number } = {}): Promise<RotationSummary> {
  const batchSize = options.batchSize ?? 100;
  const summary: RotationSummary = { sites: 0, reencrypted: 0, rewrapped: 0, retired: 0, undecryptable: 0, skippedSites: [] };
  for (const siteId of await dataKeyRepository.siteIds(host.pool)) {
    try {
      summary.rewrapped += await rewrapSite(host, siteId);
    } catch (e) {
      // One site with a lost master key must not stop the others; nothing of it is changed.
      if (!isAppError(e)) throw e;
      summary.skippedSites.push(siteId);
      continue;
    }
    const version = await newVersion(host, siteId);
    forgetCurrentVersion(host, siteId);
    // A second pass picks up values a running server wrote with the old version meanwhile.
    const failed = new Set<number>();
    await reencryptPass(host, siteId, version, batchSize, summary, failed);
    await reencryptPass(host, siteId, version, batchSize, summary, failed);
    summary.undecryptable += failed.size;
    summary.retired += await dataKeyRepository.retireUnused(host.pool, siteId, version);
    summary.sites++;
  }
  return summary;
}
