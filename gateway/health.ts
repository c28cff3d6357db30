// Liveness and readiness (DECISIONS §1): ready when the database, Redis (when configured) and,
// in distributed mode, every subgraph the gateway routes to answer.
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../subgraphs/core/platform.js';

async function probe(check: () => Promise<unknown>, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A subgraph served over HTTP (distributed mode) answers its /healthz: the gateway routes
 * GraphQL to it, so the gateway is not ready while it is down.
 */
async function subgraphAlive(url: string, timeoutMs = 2000): Promise<void> {
  const res = await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(timeoutMs) });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`status ${res.status}`);
}

export function registerHealthRoutes(app: FastifyInstance, platform: Platform): void {
  const config = { noTenant: true, bare: true };
  app.get('/healthz', { config }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config }, async (_request, reply) => {
    const checks: Record<string, 'ok' | 'down'> = {
      database: (await probe(() => platform.pool.query('SELECT 1'))) ? 'ok' : 'down',
    };
    if (platform.redis) checks.redis = (await probe(() => platform.redis!.ping())) ? 'ok' : 'down';
    const remote = Object.entries(platform.config.subgraphUrls);
    const alive = await Promise.all(remote.map(([, url]) => probe(() => subgraphAlive(url))));
    remote.forEach(([name], i) => (checks[`subgraph:${name}`] = alive[i] ? 'ok' : 'down'));
    const down = Object.keys(checks).filter((k) => checks[k] === 'down');
    if (down.length) {
      return reply.code(503).send({ status: 'unavailable', detail: `Not ready: ${down.join(', ')} down.`, checks });
    }
    return { status: 'ok', checks };
  });
}
