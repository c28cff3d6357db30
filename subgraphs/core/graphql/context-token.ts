// The request context as it travels from the gateway to a subgraph served over HTTP: a
// short-lived HS256 JWT signed with the platform's subgraph secret, so that a subgraph
// trusts who the caller is and which site the request is for without authenticating again.
import jwt from 'jsonwebtoken';
import type { Principal, RequestContext } from '../context.js';
import { errors } from '../errors.js';

export const CONTEXT_HEADER = 'x-platform-context';

const ISSUER = 'tenantry-gateway';
const AUDIENCE = 'tenantry-subgraph';
// Signed for each subgraph fetch, used at once: a short life limits replay of a leaked header.
const TTL_SEC = 30;
const CLOCK_TOLERANCE_SEC = 5;

export interface ContextClaims {
  requestId: string;
  principal: Principal;
  siteId: number | null;
  host: string;
  baseUrl: string;
}

export function signContextToken(ctx: RequestContext, secret: string): string {
  const claims: ContextClaims = {
    requestId: ctx.requestId,
    // The principal's cached row stays in the gateway process: it would only grow the header.
    principal: ctx.principal.kind === 'user' ? { ...ctx.principal, row: undefined } : ctx.principal,
    siteId: ctx.site?.id ?? null,
    host: ctx.host,
    baseUrl: ctx.baseUrl,
  };
  return jwt.sign(claims, secret, { algorithm: 'HS256', expiresIn: TTL_SEC, issuer: ISSUER, audience: AUDIENCE });
}

/** The claims of a valid header; 401 `not_authenticated` when missing, invalid or expired. */
export function verifyContextToken(header: string | string[] | undefined, secret: string): ContextClaims {
  if (typeof header !== 'string' || !header) throw errors.notAuthenticated(`Missing ${CONTEXT_HEADER} header.`);
  let claims: jwt.JwtPayload;
  try {
    claims = jwt.verify(header, secret, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      clockTolerance: CLOCK_TOLERANCE_SEC,
    }) as jwt.JwtPayload;
  } catch {
    throw errors.notAuthenticated(`Invalid or expired ${CONTEXT_HEADER} header.`);
  }
  const { requestId, principal, siteId, host, baseUrl } = claims;
  if (typeof requestId !== 'string' || !principal || typeof principal.kind !== 'string' || typeof host !== 'string') {
    throw errors.notAuthenticated(`Malformed ${CONTEXT_HEADER} header.`);
  }
  return { requestId, principal, siteId: typeof siteId === 'number' ? siteId : null, host, baseUrl: String(baseUrl ?? '') };
}
