// A real OpenID Connect provider (oidc-provider 9) on a free loopback port, for social
// sign-in tests. Interactions are completed by this harness: the login prompt signs in as
// `nextAccount`, and consent is granted automatically, so a test drives the whole
// authorization-code flow with plain HTTP requests.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  given_name?: string;
  family_name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, TestAccount>;
  /** The account the next login interaction signs in as. */
  nextAccount: string;
  close(): Promise<void>;
}

export async function startOidcProvider(redirectUris: string[]): Promise<TestOidcProvider> {
  // The package is ESM-only and ships no types; a computed specifier keeps tsc out of it.
  const specifier = 'oidc-provider';
  // Its start-up warnings (Node 20 "unsupported runtime", in-memory adapter) are expected here.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void (String(args[0]).startsWith('oidc-provider WARNING') || warn(...args));
  try {
    return await start((await import(specifier)).default, redirectUris);
  } finally {
    console.warn = warn;
  }
}

async function start(Provider: any, redirectUris: string[]): Promise<TestOidcProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const harness: TestOidcProvider = {
    issuer,
    clientId: 'tenantry-test',
    clientSecret: crypto.randomBytes(24).toString('hex'),
    accounts: new Map(),
    nextAccount: '',
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: harness.clientId,
        client_secret: harness.clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [crypto.randomBytes(16).toString('hex')] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['preferred_username', 'given_name', 'family_name'],
    },
    features: { devInteractions: { enabled: false } },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    findAccount: async (_ctx: unknown, id: string) => {
      const account = harness.accounts.get(id);
      return account && { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
    // Consent is implied: every client gets the scopes it asks for.
    loadExistingGrant: async (ctx: any) => {
      const existing = ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (existing) return ctx.oidc.provider.Grant.find(existing);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const callback = provider.callback();
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!req.url?.startsWith('/interaction/')) return callback(req, res);
    provider
      .interactionFinished(req, res, { login: { accountId: harness.nextAccount } }, { mergeWithLastSubmission: false })
      .catch((e: Error) => {
        res.statusCode = 500;
        res.end(e.message);
      });
  });
  return harness;
}

/**
 * Follows the provider's redirects from `start` (the URL our /login/ redirected to), carrying
 * the provider's cookies, until it redirects back to us; returns that callback URL.
 */
export async function driveProvider(start: string, backTo: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`provider answered ${res.status} without redirect: ${await res.text()}`);
    url = new URL(location, url).href;
    if (url.startsWith(backTo)) return url;
  }
  throw new Error('too many redirects at the provider');
}
