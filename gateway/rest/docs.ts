// REST documentation at the edge: the OpenAPI document (openapi.ts) at GET /api/openapi.json and
// Swagger UI at GET /api/docs/, served from @fastify/swagger-ui's own files (no CDN). Both are
// public, the same on every host, and need no tenant lookup.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { RouteSpec } from '../../subgraphs/core/rest.js';
import { MODULES } from '../../subgraphs/modules.js';
import { PUBLIC_ROUTE, publicScope } from '../explorer.js';
import { buildOpenApi, OPENAPI_PATH } from './openapi.js';

export const DOCS_PREFIX = '/api/docs';

export async function registerRestDocs(app: FastifyInstance, routes: readonly RouteSpec[]): Promise<void> {
  const document = buildOpenApi(routes, new Map(MODULES.map((m) => [m.name, m.restErrors])));
  let text: string | undefined;

  app.get(OPENAPI_PATH, { config: PUBLIC_ROUTE }, async (_request, reply) => {
    text ??= JSON.stringify(document);
    return reply.header('Cache-Control', 'public, max-age=300').type('application/json; charset=utf-8').send(text);
  });

  await app.register(async (scope) => {
    publicScope(scope);
    // Static mode: @fastify/swagger hands out this document as it is (it reads no route).
    await scope.register(swagger, { mode: 'static', specification: { document: document as never } });
    await scope.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      uiConfig: { deepLinking: true, docExpansion: 'none' },
      // Everything from this origin: the page has no inline script, Swagger UI sets inline styles.
      staticCSP:
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
        "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'",
    });
  });
}
