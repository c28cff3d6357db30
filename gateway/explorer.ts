// What a person in a browser finds at the edge: the GraphQL IDE at GET /graphql (Altair, served
// from the altair-static package's own files, so it works without internet), Apollo Sandbox at
// GET /graphql?ide=sandbox for a browser that is online, and GET / pointing to the rest.
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** URL path of the IDE's own files (scripts, styles, fonts, its sandbox frame). */
export const IDE_ASSETS = '/graphql/ide/';

/** Shown in the IDE's first tab: answers on any host, with or without credentials. */
const FIRST_QUERY = `# Ctrl+Enter (or Send Request) runs the operation.
# Signed in through POST /api/auth/session/login/ in this browser? The session cookie is sent.
# From an app: add the header Authorization: Bearer <access token> or Api-Key <key>.
query Explorer {
  __typename
}
`;

/** Routes that need no tenant lookup and take no credentials (the static files of the pages). */
export const PUBLIC_ROUTE = { noTenant: true, bare: true } as const;

/**
 * The IDE's files: `build/dist` beside the package's entry point (what its getDistDirectory()
 * answers), found without loading the package, whose module (with zod) costs about 30 MB of
 * memory: it is imported only when someone opens the IDE.
 */
export const IDE_FILES = path.join(path.dirname(createRequire(import.meta.url).resolve('altair-static')), 'dist');

/** The header altair-static prescribes for its script sandbox frame (its SANDBOX_FRAME_CSP). */
export const SANDBOX_CSP = 'sandbox allow-scripts';

let page: Promise<string> | undefined;

async function render(): Promise<string> {
  const { renderAltair } = await import('altair-static');
  return renderAltair({
    baseURL: IDE_ASSETS,
    // Relative to the page's host: each tenant's host gets its own graph.
    endpointURL: '/graphql',
    initialName: 'Tenantry',
    initialQuery: FIRST_QUERY,
    initialHttpMethod: 'POST',
    // No account, no sign-in to Altair's cloud: the IDE is a client of this endpoint only.
    disableAccount: true,
    // Keep this IDE's saved tabs apart from other Altair instances on the same origin.
    instanceStorageNamespace: 'tenantry_',
    // Nothing that points to Altair's online services (offers, update checks, notifications).
    initialSettings: { 'banners.disable': true, 'alert.disableUpdateNotification': true, disablePushNotification: true },
  });
}

/** The IDE's HTML, rendered once: its options are the same for every host. */
export function explorerPage(): Promise<string> {
  if (!page) {
    page = render();
    // A failed render is tried again on the next request.
    page.catch(() => {
      page = undefined;
    });
  }
  return page;
}

/**
 * Does this GET come from a browser's address bar (HTML preferred over JSON), asking for the
 * IDE rather than running an operation?
 */
export function wantsExplorer(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false;
  const query = request.query as Record<string, unknown> | undefined;
  if (query && (query.query !== undefined || query.ide === 'sandbox')) return false;
  const accept = request.headers.accept;
  if (typeof accept !== 'string') return false;
  const html = accept.indexOf('text/html');
  if (html === -1) return false;
  const json = accept.indexOf('application/json');
  return json === -1 || html < json;
}

/** The platform's front door: where the API, its documentation and the health checks are. */
export const INDEX = Object.freeze({
  name: 'tenantry',
  graphql: { endpoint: '/graphql', explorer: '/graphql', sandbox: '/graphql?ide=sandbox' },
  rest: { base: '/api/', docs: '/api/docs/', openapi: '/api/openapi.json' },
  health: { live: '/healthz', ready: '/readyz' },
  jwks: '/.well-known/jwks.json',
});

function indexHtml(): string {
  const link = (href: string, text: string) => `<li><a href="${href}">${text}</a> <code>${href}</code></li>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Tenantry</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}code{color:#555}</style>
</head>
<body>
<h1>Tenantry</h1>
<ul>
${link(INDEX.graphql.explorer, 'GraphQL explorer')}
${link(INDEX.graphql.sandbox, 'GraphQL in Apollo Sandbox (needs internet)')}
${link(INDEX.rest.docs, 'REST documentation')}
${link(INDEX.rest.openapi, 'OpenAPI 3.1 document')}
${link(INDEX.health.live, 'Liveness')}
${link(INDEX.health.ready, 'Readiness')}
</ul>
</body>
</html>
`;
}

/** Applies PUBLIC_ROUTE to every route a plugin registered inside `scope` adds. */
export function publicScope(scope: FastifyInstance): void {
  scope.addHook('onRoute', (options) => {
    options.config = { ...(options.config ?? {}), ...PUBLIC_ROUTE };
  });
}

export async function registerExplorer(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    publicScope(scope);
    await scope.register(fastifyStatic, {
      root: IDE_FILES,
      prefix: IDE_ASSETS,
      decorateReply: false,
      index: false,
      list: false,
      // The bundle's file names carry a content hash; index.html is served by explorerPage().
      maxAge: '1h',
      // The frame that runs pre- and post-request scripts gets no access to this origin.
      setHeaders: (reply, file) => {
        if (file.split(/[\\/]/).includes('iframe-sandbox')) reply.header('Content-Security-Policy', SANDBOX_CSP);
      },
    });
  });

  app.get('/', { config: PUBLIC_ROUTE }, async (request, reply) => {
    const accept = request.headers.accept ?? '';
    if (accept.includes('text/html')) return reply.type('text/html; charset=utf-8').send(indexHtml());
    return INDEX;
  });
}
