// Public keys for verifying the platform's tokens (DECISIONS §1). Empty with JWT_SECRET.
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../subgraphs/core/platform.js';

export function registerJwksRoute(app: FastifyInstance, platform: Platform): void {
  app.get('/.well-known/jwks.json', { config: { noTenant: true, bare: true } }, async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=300');
    return platform.keys.jwt.jwks;
  });
}
