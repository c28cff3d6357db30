// API keys (DECISIONS §3): `tk_<prefix>_<secret>`. Only the SHA-256 of the whole key is
// stored (a key carries 256 random bits, so a fast hash is enough); the prefix is kept in
// clear so people can tell their keys apart. The tenancy module issues keys; the edge checks them.
import crypto from 'node:crypto';

export interface GeneratedApiKey {
  /** Shown to its creator once, never stored. */
  key: string;
  prefix: string;
  /** What goes into api_keys.key_hash. */
  hash: string;
}

const KEY_RE = /^tk_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/;

const sha256 = (value: string): string => crypto.createHash('sha256').update(value).digest('hex');

export const apiKeyFormat = {
  generate(): GeneratedApiKey {
    const prefix = crypto.randomBytes(4).toString('hex');
    const key = `tk_${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
    return { key, prefix, hash: sha256(key) };
  },
  hash: sha256,
  looksLikeKey: (key: string): boolean => KEY_RE.test(key),
};
