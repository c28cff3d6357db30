// Social sign-in through OpenID Connect (DECISIONS §3): authorization-code flow with PKCE,
// state and nonce, against the providers named in OIDC_PROVIDERS.
import * as oidc from 'openid-client';
import type { OidcProviderConfig } from '../core/config.js';
import type { RequestContext } from '../core/context.js';
import { errors, isAppError } from '../core/errors.js';
import type { Platform } from '../core/platform.js';
import { OIDC_STATE_TTL_SEC, openState, safeNext, sealState } from './oidc-state.js';
import { resolveSocialUser, type ExternalIdentity } from './social-user.js';
import type { AuthUser } from './token.repository.js';

const discoveries = new WeakMap<Platform, Map<string, Promise<oidc.Configuration>>>();

function providerConfig(platform: Platform, name: string): OidcProviderConfig {
  const p = platform.config.oidcProviders.find((x) => x.name === name);
  if (!p) throw errors.notFound(`Unknown sign-in provider "${name}".`);
  return p;
}

/** Discovery once per provider and process; a failure is retried on the next request. */
function configuration(platform: Platform, p: OidcProviderConfig): Promise<oidc.Configuration> {
  let byName = discoveries.get(platform);
  if (!byName) discoveries.set(platform, (byName = new Map()));
  let found = byName.get(p.name);
  if (!found) {
    const issuer = new URL(p.issuer);
    // Plain http only when the operator configured it so (local and test providers).
    const execute = issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
    found = oidc.discovery(issuer, p.clientId, p.clientSecret, undefined, { execute, timeout: 10 });
    byName.set(p.name, found);
    found.catch((e: Error) => {
      byName.delete(p.name);
      platform.log.warn({ provider: p.name, err: e.name }, 'OpenID Connect discovery failed');
    });
  }
  return found.catch(() => {
    throw errors.unavailable(`Sign-in provider "${p.name}" cannot be reached.`);
  });
}

const redirectUri = (ctx: RequestContext, provider: string) => `${ctx.baseUrl}/api/auth/social/${provider}/callback/`;

export interface SocialStart {
  location: string;
  stateCookie: string;
}

export async function startSocialLogin(ctx: RequestContext, provider: string, nextParam: unknown): Promise<SocialStart> {
  const p = providerConfig(ctx.platform, provider);
  const next = safeNext(nextParam, ctx.host);
  if (next === false) throw errors.field('next', 'Must be a path or a URL on this host.');
  const config = await configuration(ctx.platform, p);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(ctx, provider),
    scope: p.scopes ?? 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const sealed = sealState(ctx.platform, {
    provider,
    state,
    nonce,
    verifier,
    next,
    exp: Math.floor(Date.now() / 1000) + OIDC_STATE_TTL_SEC,
  });
  return { location: url.href, stateCookie: sealed };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

async function identity(
  config: oidc.Configuration,
  provider: string,
  tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
): Promise<ExternalIdentity> {
  const claims = tokens.claims();
  if (!claims) throw errors.authenticationFailed('The provider returned no ID token.');
  let info: Record<string, unknown> = { ...claims };
  // Many providers put e-mail and profile claims only in the userinfo response.
  if (!str(info.email) && config.serverMetadata().userinfo_endpoint) {
    info = { ...info, ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)) };
  }
  return {
    provider,
    subject: claims.sub,
    email: str(info.email),
    emailVerified: info.email_verified === true || info.email_verified === 'true',
    preferredUsername: str(info.preferred_username) ?? str(info.nickname),
    givenName: str(info.given_name),
    familyName: str(info.family_name),
  };
}

export interface SocialResult {
  user: AuthUser;
  next: string | null;
}

/** Completes the code flow for the callback URL `url` (path and query as received). */
export async function completeSocialLogin(
  ctx: RequestContext,
  provider: string,
  url: string,
  sealed: string | undefined,
): Promise<SocialResult> {
  const p = providerConfig(ctx.platform, provider);
  const saved = openState(ctx.platform, provider, sealed);
  if (!saved) throw errors.authenticationFailed('Social sign-in expired or was not started here; start again.');
  const config = await configuration(ctx.platform, p);
  let id: ExternalIdentity;
  try {
    const current = new URL(url, redirectUri(ctx, provider));
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: saved.verifier,
      expectedState: saved.state,
      expectedNonce: saved.nonce,
      idTokenExpected: true,
    });
    id = await identity(config, provider, tokens);
  } catch (e) {
    if (isAppError(e)) throw e;
    // Only the error's class and code: messages may echo provider-supplied text.
    const err = e as { name?: string; code?: string; error?: string };
    ctx.log.warn({ provider, err: err.name, code: err.code, error: err.error }, 'social sign-in failed');
    throw errors.authenticationFailed('Social sign-in failed.');
  }
  return { user: await resolveSocialUser(ctx.platform, id), next: saved.next };
}
