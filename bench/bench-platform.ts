// The platform as the benchmarks run it (bench/run.ts, bench/cpu-per-request.ts): a fresh data
// directory with its embedded PostgreSQL, rate limits off (they would answer 429 within a
// second), request logs on and written to /dev/null (every deployment pays for them), and a
// signed-in user for the requests.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { buildApp } from '../gateway/app.js';
import { signAccessToken } from '../subgraphs/auth/jwt.service.js';
import { loadConfig } from '../subgraphs/core/config.js';
import { createLogger } from '../subgraphs/core/logger.js';
import { startPlatform, type Platform } from '../subgraphs/core/platform.js';
import { hashPassword } from '../subgraphs/tenancy/password.js';
import { MODULES } from '../subgraphs/modules.js';
import { userRepository } from '../subgraphs/tenancy/user.repository.js';
import type { BenchEnv, Request } from './bench-types.js';

export async function startBenchPlatform(
  prefix = 'tenantry-bench-',
): Promise<{ platform: Platform; app: FastifyInstance; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dataDir, 0o755); // embedded PostgreSQL runs as another OS user when we are root
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    RATE_LIMIT_STANDARD: 'off',
    RATE_LIMIT_AUTH: 'off',
    RATE_LIMIT_WRITE: 'off',
    LOG_LEVEL: 'info',
  });
  const log = createLogger(config.logLevel, pino.destination({ dest: '/dev/null', sync: false, minLength: 4096 }));
  const platform = await startPlatform(config, log, { modules: MODULES, seed: true });
  const app = await buildApp(platform);
  return { platform, app, dataDir };
}

/** Listens on a free port of 127.0.0.1; answers the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/** A new user and an access token for it: what the benchmarks' requests are sent as. */
export async function benchEnv(platform: Platform, base: string): Promise<BenchEnv> {
  const id = `bench-${Date.now().toString(36)}`;
  const user = await userRepository.create(platform.prisma, {
    username: id,
    email: `${id}@example.test`, // unique: a DATABASE_URL keeps earlier runs' users
    passwordHash: await hashPassword('bench password'),
  });
  return { platform, user, token: signAccessToken(platform, user), base };
}

/**
 * The bare side of a benchmark: a Fastify route returning the same JSON as the platform (the
 * parsed object, serialized per request as for any route; non-JSON answers are replayed), or,
 * with the benchmark's own handler (bare `pg`), that handler's answer on every path.
 */
export async function bareServer(
  req: Request,
  sample: Sample,
  handler?: (request: FastifyRequest) => Promise<unknown>,
): Promise<FastifyInstance> {
  const { status, text: body } = sample;
  const contentType = sample.headers.get('content-type') ?? 'application/json';
  const app = Fastify({ logger: false });
  // A handler of the benchmark's own answers every path (the cold variant's many URLs).
  const route = handler ? '*' : req.url.split('?')[0];
  const json = contentType.startsWith('application/json') ? JSON.parse(body) : undefined;
  app.route({
    method: req.method,
    url: route,
    handler: async (request, reply) => {
      if (handler) return reply.code(status).send(await handler(request));
      return json !== undefined ? reply.code(status).send(json) : reply.code(status).type(contentType).send(body);
    },
  });
  return app;
}

/** A platform answer as the runners read it. */
export interface Sample {
  status: number;
  text: string;
  headers: { get(name: string): string | null };
  raw: http.IncomingHttpHeaders;
}

/**
 * One request through node:http rather than fetch, which drops a `host` header: benchmarks
 * on a tenant host (secrets) name the site's domain that way, as autocannon sends it.
 */
export function sampleRequest(base: string, req: Request): Promise<Sample> {
  const body = req.body !== undefined ? JSON.stringify(req.body) : undefined;
  return new Promise((resolve, reject) => {
    const r = http.request(
      base + req.url,
      { method: req.method, headers: { ...req.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            headers: { get: (name) => (res.headers[name.toLowerCase()] as string | undefined) ?? null },
            raw: res.headers,
          }),
        );
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}
