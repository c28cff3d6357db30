// REST routes of authentication (DECISIONS §3). Adapters only: parse, call, shape.
import type { RequestContext } from '../core/context.js';
import type { Platform } from '../core/platform.js';
import { toUserAccount, toUserRest } from '../tenancy/tenancy.api.js';
import { userRepository } from '../tenancy/tenancy.api.js';
import { errors } from '../core/errors.js';
import { RestResult, type RestInput, type RouteSpec } from '../core/rest.js';
import { checkCredentials, stringFields } from './credentials.js';
import { completeSocialLogin, startSocialLogin } from './oidc.service.js';
import { OIDC_STATE_COOKIE, OIDC_STATE_TTL_SEC } from './oidc-state.js';
import { CSRF_COOKIE, SESSION_COOKIE, createSession, endSession } from './session.service.js';
import type { AuthUser } from './token.repository.js';
import { blacklistRefreshToken, issueTokenPair, rotateRefreshToken, verifyAnyToken } from './token.service.js';

// Token-bearing answers must not be stored by browsers or proxies.
const NO_STORE = { 'Cache-Control': 'no-store' };

const base = { module: 'auth', status: 200 } as const;

function bearer(input: RestInput): string | undefined {
  const h = input.headers.authorization;
  return typeof h === 'string' && h.startsWith('Bearer ') ? h.slice(7).trim() : undefined;
}

async function userView(platform: Platform, user: AuthUser) {
  const full = await userRepository.findActiveById(platform.pool, user.id);
  if (!full) throw errors.authenticationFailed('User not found or inactive.');
  return toUserRest(toUserAccount(full));
}

const jwtRoutes: RouteSpec[] = [
  {
    ...base,
    method: 'POST',
    path: '/auth/jwt/token/',
    permission: null,
    scope: 'console',
    auth: 'optional',
    rateLimit: 'auth',
    csrfExempt: true,
    summary: 'Obtain an access and a refresh token with username and password',
    handler: async (ctx, input) => {
      const { username, password } = stringFields(input.body, ['username', 'password']);
      const user = await checkCredentials(ctx.platform, username, password);
      return new RestResult(200, await issueTokenPair(ctx.platform, user), NO_STORE);
    },
  },
  {
    ...base,
    method: 'POST',
    path: '/auth/jwt/token/refresh/',
    permission: null,
    scope: 'console',
    auth: 'optional',
    csrfExempt: true,
    summary: 'Rotate a refresh token: a new access and a new refresh token',
    handler: async (ctx, input) => {
      const { refresh } = stringFields(input.body, ['refresh']);
      return new RestResult(200, await rotateRefreshToken(ctx.platform, refresh), NO_STORE);
    },
  },
  {
    ...base,
    method: 'POST',
    path: '/auth/jwt/token/verify/',
    permission: null,
    scope: 'console',
    auth: 'optional',
    csrfExempt: true,
    summary: 'Check that a token is valid',
    handler: async (ctx, input) => {
      const { token } = stringFields(input.body, ['token']);
      await verifyAnyToken(ctx.platform, token);
      return {};
    },
  },
  {
    ...base,
    method: 'POST',
    path: '/auth/jwt/token/blacklist/',
    permission: null,
    scope: 'console',
    auth: 'optional',
    // Acts only on the token in the body, never on the ambient session cookie.
    csrfExempt: true,
    summary: 'Log out: blacklist a refresh token (and the access token sent with the request)',
    handler: async (ctx, input) => {
      const { refresh } = stringFields(input.body, ['refresh']);
      await blacklistRefreshToken(ctx.platform, refresh, bearer(input));
      return {};
    },
  },
];

const sessionRoutes: RouteSpec[] = [
  {
    ...base,
    method: 'POST',
    path: '/auth/session/login/',
    permission: null,
    scope: 'console',
    auth: 'optional',
    rateLimit: 'auth',
    // No session exists yet to protect; login CSRF is limited by SameSite=Lax cookies.
    csrfExempt: true,
    summary: 'Sign in for browser use: sets the sessionid and csrftoken cookies',
    handler: async (ctx, input) => {
      const { username, password } = stringFields(input.body, ['username', 'password']);
      const user = await checkCredentials(ctx.platform, username, password);
      const old = input.cookies[SESSION_COOKIE];
      if (old) await endSession(ctx.platform, old); // no session fixation across sign-ins
      const s = await createSession(ctx.platform, user);
      return new RestResult(200, { user: await userView(ctx.platform, user), csrftoken: s.csrfToken }, NO_STORE, [
        { name: SESSION_COOKIE, value: s.sessionId, httpOnly: true, maxAgeSec: s.maxAgeSec },
        { name: CSRF_COOKIE, value: s.csrfToken, httpOnly: false, maxAgeSec: s.maxAgeSec },
      ]);
    },
  },
  {
    ...base,
    method: 'POST',
    path: '/auth/session/logout/',
    permission: null,
    scope: 'console',
    auth: 'optional',
    summary: 'End the browser session and clear its cookies',
    handler: async (ctx, input) => {
      const sid = input.cookies[SESSION_COOKIE];
      if (sid) await endSession(ctx.platform, sid);
      return new RestResult(200, {}, NO_STORE, [
        { name: SESSION_COOKIE, value: '', clear: true },
        { name: CSRF_COOKIE, value: '', clear: true },
      ]);
    },
  },
];

function tokenFragment(next: string, tokens: { access: string; refresh: string }): string {
  const hash = new URLSearchParams(tokens).toString();
  return `${next.split('#')[0]}#${hash}`;
}

const socialRoutes: RouteSpec[] = [
  {
    ...base,
    method: 'GET',
    path: '/auth/social/:provider/login/',
    permission: null,
    scope: 'any',
    auth: 'optional',
    status: 302,
    summary: 'Start social sign-in: redirects to the provider (optional ?next=)',
    handler: async (ctx, input) => {
      const start = await startSocialLogin(ctx, input.params.provider, input.query.next);
      return new RestResult(302, undefined, { Location: start.location, ...NO_STORE }, [
        { name: OIDC_STATE_COOKIE, value: start.stateCookie, httpOnly: true, maxAgeSec: OIDC_STATE_TTL_SEC },
      ]);
    },
  },
  {
    ...base,
    method: 'GET',
    path: '/auth/social/:provider/callback/',
    permission: null,
    scope: 'any',
    auth: 'optional',
    rateLimit: 'auth',
    summary: 'Finish social sign-in: tokens as JSON, or a redirect to next with tokens in the fragment',
    handler: async (ctx: RequestContext, input) => {
      const done = await completeSocialLogin(ctx, input.params.provider, input.url, input.cookies[OIDC_STATE_COOKIE]);
      const tokens = await issueTokenPair(ctx.platform, done.user);
      const clear = [{ name: OIDC_STATE_COOKIE, value: '', clear: true }];
      if (done.next) return new RestResult(302, undefined, { Location: tokenFragment(done.next, tokens), ...NO_STORE }, clear);
      return new RestResult(200, { ...tokens, user: await userView(ctx.platform, done.user) }, NO_STORE, clear);
    },
  },
];

export const authRoutes: RouteSpec[] = [...jwtRoutes, ...sessionRoutes, ...socialRoutes];
