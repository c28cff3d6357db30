// The platform as the benchmarks run it (bench/run.ts, bench/cpu-per-request.ts): a fresh data
// directory with its embedded PostgreSQL, rate limits off (they would answer 429 within a
// second), request logs on and written to /dev/null (every deployment pays for them), and a
// signed-in user for the requests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../gateway/app.js';
import { signAccessToken } from '../subgraphs/auth/jwt.service.js';
import { loadConfig } from '../subgraphs/core/config.js';
import { createLogger } from '../subgraphs/core/logger.js';
import { startPlatform, type Platform } from '../subgraphs/core/platform.js';
import { hashPassword } from '../subgraphs/tenancy/password.js';
import { MODULES } from '../subgraphs/modules.js';
import { userRepository } from '../subgraphs/tenancy/user.repository.js';
import type { BenchEnv } from './bench-types.js';

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
  const user = await userRepository.create(platform.prisma, {
    username: `bench-${Date.now().toString(36)}`,
    email: 'bench@example.test',
    passwordHash: await hashPassword('bench password'),
  });
  return { platform, user, token: signAccessToken(platform, user), base };
}
