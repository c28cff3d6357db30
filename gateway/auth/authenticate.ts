// Authentication at the edge: one principal per request, from (in this order) the
// Authorization header (Bearer JWT or Api-Key) or the session cookie. A request without
// credentials is anonymous; routes decide whether that is enough.
import type { FastifyRequest } from 'fastify';
import { ANONYMOUS, type Principal, type UserPrincipal } from '../../subgraphs/core/context.js';
import { errors } from '../../subgraphs/core/errors.js';
import type { Platform } from '../../subgraphs/core/platform.js';
import { apiKeyPrincipal } from '../../subgraphs/auth/api-key.service.js';
import { CSRF_HEADER, SESSION_COOKIE, csrfMatches, findSession } from '../../subgraphs/auth/session.service.js';
import type { AuthUser } from '../../subgraphs/auth/token.repository.js';
import { userForAccessToken } from '../../subgraphs/auth/token.service.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const userPrincipal = (u: AuthUser, via: 'jwt' | 'session', jti?: string): UserPrincipal => ({
  kind: 'user',
  via,
  userId: u.id,
  uuid: u.uuid,
  username: u.username,
  isStaff: u.isStaff,
  isSuperuser: u.isSuperuser,
  jti,
  row: u.row,
});

/**
 * CSRF applies to cookie authentication only (a header credential cannot be sent by a
 * foreign page). /graphql is left to Apollo Server's own CSRF prevention, which refuses
 * requests a browser could send cross-site without a preflight.
 */
function needsCsrf(request: FastifyRequest): boolean {
  if (!UNSAFE.has(request.method)) return false;
  if (request.route.config.spec?.csrfExempt) return false;
  const path = request.route.url ?? request.url.split('?')[0];
  return path !== '/graphql' && !path.startsWith('/graphql/');
}

export async function authenticate(platform: Platform, request: FastifyRequest): Promise<Principal> {
  const header = request.headers.authorization;
  if (header) {
    const space = header.indexOf(' ');
    const scheme = space > 0 ? header.slice(0, space) : header;
    const credential = space > 0 ? header.slice(space + 1).trim() : '';
    if (!credential) throw errors.authenticationFailed('Invalid authorization header: no credentials provided.');
    if (scheme === 'Bearer') {
      const { user, jti } = await userForAccessToken(platform, credential);
      return userPrincipal(user, 'jwt', jti);
    }
    if (scheme === 'Api-Key') return apiKeyPrincipal(platform, credential, request.ctx.site);
    throw errors.authenticationFailed('Unsupported authorization scheme: use Bearer or Api-Key.');
  }
  const sessionId = request.cookies?.[SESSION_COOKIE];
  if (!sessionId) return ANONYMOUS;
  // An unknown or expired session cookie is ignored, so a stale cookie never blocks login.
  const session = await findSession(platform, sessionId);
  if (!session) return ANONYMOUS;
  if (needsCsrf(request) && !csrfMatches(session, request.headers[CSRF_HEADER])) throw errors.csrfFailed();
  return userPrincipal(session.user, 'session');
}
