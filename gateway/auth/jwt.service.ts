// JSON Web Tokens (DECISIONS §3).
import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Platform } from '../../subgraphs/core/platform.js';

export interface TokenSubject {
  id: number;
  uuid: string;
  username: string;
  isStaff: boolean;
  isSuperuser: boolean;
}

export function signAccessToken(platform: Platform, user: TokenSubject): string {
  const { jwt: keys } = platform.keys;
  return jwt.sign(
    {
      sub: user.uuid,
      uid: user.id,
      username: user.username,
      is_staff: user.isStaff,
      is_superuser: user.isSuperuser,
      type: 'access',
      jti: crypto.randomUUID(),
    },
    keys.signingKey,
    { algorithm: keys.algorithm, expiresIn: platform.config.jwt.accessTtlSec, keyid: keys.kid },
  );
}
