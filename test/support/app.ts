// Starts the whole platform for a test file: its own database, its own data directory,
// captured JSON logs, and helpers to call it as a client would.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../gateway/app.js';
import { signAccessToken } from '../../subgraphs/auth/jwt.service.js';
import { loadConfig } from '../../subgraphs/core/config.js';
import { createLogger } from '../../subgraphs/core/logger.js';
import { startPlatform, type Platform } from '../../subgraphs/core/platform.js';
import { hashPassword } from '../../subgraphs/tenancy/password.js';
import { MODULES } from '../../subgraphs/modules.js';
import { userRepository, type User } from '../../subgraphs/tenancy/user.repository.js';
import { createTestDatabase } from './db.js';

export interface CallOptions {
  body?: unknown;
  token?: string;
  host?: string;
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
}

export interface CallResult {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  cookies: { name: string; value: string }[];
}

export interface TestApp {
  app: FastifyInstance;
  platform: Platform;
  /** Every JSON log line written so far (platform and request logs). */
  logs: string[];
  call(method: string, url: string, opts?: CallOptions): Promise<CallResult>;
  createUser(
    fields?: Partial<{ username: string; password: string; email: string; isStaff: boolean; isSuperuser: boolean }>,
  ): Promise<User>;
  tokenFor(user: User): string;
  close(): Promise<void>;
}

let counter = 0;

export interface TestAppOptions {
  /** The URL the platform connects with, from the test database's (e.g. through a proxy). */
  databaseUrl?: (url: string) => string;
}

export async function startTestApp(env: Record<string, string> = {}, opts: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-app-'));
  const config = loadConfig({
    RATE_LIMIT_STANDARD: 'off',
    RATE_LIMIT_AUTH: 'off',
    RATE_LIMIT_WRITE: 'off',
    LOG_LEVEL: 'info',
    ...env,
    DATABASE_URL: opts.databaseUrl ? opts.databaseUrl(db.url) : db.url,
    DATA_DIR: dataDir,
  });
  const logs: string[] = [];
  const log = createLogger(config.logLevel, { write: (line: string) => void logs.push(line) });
  const platform = await startPlatform(config, log, { modules: MODULES, seed: true });
  const app = await buildApp(platform);
  await app.ready();

  const call = async (method: string, url: string, opts: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = { host: opts.host ?? 'localhost', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({ method: method as 'GET', url, headers, payload, cookies: opts.cookies });
    let body: unknown = undefined;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      body = res.body;
    }
    return {
      status: res.statusCode,
      body,
      headers: res.headers as CallResult['headers'],
      text: res.body,
      cookies: res.cookies as { name: string; value: string }[],
    };
  };

  return {
    app,
    platform,
    logs,
    call,
    async createUser(fields = {}) {
      const n = ++counter;
      return userRepository.create(platform.prisma, {
        username: fields.username ?? `user${n}_${Date.now().toString(36)}`,
        email: fields.email ?? `user${n}@example.test`,
        passwordHash: await hashPassword(fields.password ?? 'correct horse battery'),
        isStaff: fields.isStaff,
        isSuperuser: fields.isSuperuser,
      });
    },
    tokenFor: (user) => signAccessToken(platform, user),
    async close() {
      await app.close();
      await platform.close();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
