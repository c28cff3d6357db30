// Key material read from configuration, or generated once into DATA_DIR/keys (mode 0600)
// and reused on every later start.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { ConfigError } from './config.js';

export interface JwtKeys {
  algorithm: 'RS256' | 'ES256' | 'HS256';
  /** Key used to sign (PEM or shared secret). */
  signingKey: string;
  /** Key used to verify (PEM or shared secret). */
  verifyKey: string;
  kid: string;
  /** Public keys for /.well-known/jwks.json (empty for a shared secret). */
  jwks: { keys: Record<string, unknown>[] };
}

export interface PlatformKeys {
  jwt: JwtKeys;
  /** HMAC secret that signs the request context sent to subgraphs over HTTP. */
  subgraphSecret: string;
}

/** Reads a key file, or creates it with `make()` when absent (safe against a concurrent start). */
export function readOrCreateKeyFile(file: string, make: () => string, log?: Logger): string {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, make(), { flag: 'wx', mode: 0o600 });
    log?.warn({ file }, 'generated a new key file; keep it safe and back it up');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return fs.readFileSync(file, 'utf8');
}

function asymmetric(privatePem: string, publicPem: string, variable: string): JwtKeys {
  let priv: crypto.KeyObject;
  let pub: crypto.KeyObject;
  try {
    priv = crypto.createPrivateKey(privatePem);
    pub = crypto.createPublicKey(publicPem);
  } catch {
    throw new ConfigError(variable, 'is not a readable PEM key');
  }
  const type = priv.asymmetricKeyType;
  if (type !== 'rsa' && type !== 'ec') throw new ConfigError(variable, `key type ${type} is not supported (use RSA or EC P-256)`);
  if (type === 'ec' && priv.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new ConfigError(variable, 'EC keys must use the P-256 curve');
  }
  const algorithm = type === 'rsa' ? 'RS256' : 'ES256';
  const jwk = pub.export({ format: 'jwk' }) as Record<string, unknown>;
  const kid = crypto.createHash('sha256').update(JSON.stringify(jwk)).digest('base64url').slice(0, 16);
  return {
    algorithm,
    signingKey: privatePem,
    verifyKey: publicPem,
    kid,
    jwks: { keys: [{ ...jwk, kid, alg: algorithm, use: 'sig' }] },
  };
}

export function loadPlatformKeys(config: Readonly<Config>, log?: Logger): PlatformKeys {
  const dir = path.join(config.dataDir, 'keys');
  let jwt: JwtKeys;
  if (config.jwt.privateKey && config.jwt.publicKey) {
    jwt = asymmetric(config.jwt.privateKey, config.jwt.publicKey, 'JWT_PRIVATE_KEY');
  } else if (config.jwt.secret) {
    jwt = { algorithm: 'HS256', signingKey: config.jwt.secret, verifyKey: config.jwt.secret, kid: 'shared', jwks: { keys: [] } };
  } else {
    let pair: crypto.KeyPairSyncResult<string, string> | null = null;
    const generate = () => {
      pair ??= crypto.generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      });
      return pair;
    };
    const privatePem = readOrCreateKeyFile(path.join(dir, 'jwt-private.pem'), () => generate().privateKey, log);
    const publicPem = readOrCreateKeyFile(
      path.join(dir, 'jwt-public.pem'),
      () => crypto.createPublicKey(privatePem).export({ type: 'spki', format: 'pem' }) as string,
      log,
    );
    jwt = asymmetric(privatePem, publicPem, 'JWT_PRIVATE_KEY');
  }
  const subgraphSecret =
    config.subgraphSecret ??
    readOrCreateKeyFile(path.join(dir, 'subgraph-secret'), () => crypto.randomBytes(32).toString('hex'), log).trim();
  return { jwt, subgraphSecret };
}
