// Authentication at the edge: one principal per request.
import type { FastifyRequest } from 'fastify';
import jwt from 'jsonwebtoken';
import { ANONYMOUS, type Principal } from '../../subgraphs/core/context.js';
import { errors } from '../../subgraphs/core/errors.js';
import type { Platform } from '../../subgraphs/core/platform.js';

export async function authenticate(platform: Platform, request: FastifyRequest): Promise<Principal> {
  const header = request.headers.authorization;
  if (!header) return ANONYMOUS;
  const [scheme, token] = header.split(' ');
  if (scheme !== 'Bearer' || !token) throw errors.authenticationFailed('Unsupported authorization header.');
  try {
    const claims = jwt.verify(token, platform.keys.jwt.verifyKey, { algorithms: [platform.keys.jwt.algorithm] }) as jwt.JwtPayload;
    if (claims.type !== 'access') throw errors.tokenNotValid();
    return {
      kind: 'user',
      via: 'jwt',
      userId: claims.uid,
      uuid: claims.sub as string,
      username: claims.username,
      isStaff: Boolean(claims.is_staff),
      isSuperuser: Boolean(claims.is_superuser),
      jti: claims.jti,
    };
  } catch {
    throw errors.tokenNotValid();
  }
}
