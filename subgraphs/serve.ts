// `npm run start:subgraph -- <name> [--port N]`: one subgraph as its own process, for the
// distributed mode (DECISIONS §1, Scale-out). The gateway reaches it at SUBGRAPH_<NAME>_URL
// and signs the request context into a header; every request without a valid header answers
// 401. The port defaults to the one in SUBGRAPH_<NAME>_URL, else PORT.
import { pathToFileURL } from 'node:url';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { executeGraphql } from './core/graphql/http.js';
import { ConfigError, loadConfig } from './core/config.js';
import { describeStartupError } from './core/startup-errors.js';
import type { RequestContext } from './core/context.js';
import { AppError, errors } from './core/errors.js';
import { createLogger } from './core/logger.js';
import { startPlatform, type Platform } from './core/platform.js';
import { MODULES } from './modules.js';
import { CONTEXT_HEADER, verifyContextToken } from './core/graphql/context-token.js';
import { formatGraphqlError, internalErrorLogger } from './core/graphql/errors.js';
import {
  discardUploads,
  hasPreflightHeader,
  isMultipartRequest,
  preflightMissing,
  readMultipartOperations,
} from './core/graphql/uploads.js';
import { buildSubgraph, isSubgraphName, SUBGRAPH_NAMES } from './registry.js';
import { createSubgraphContext, type SubgraphContext } from './core/graphql/context.js';
import { siteRepository } from './tenancy/tenancy.api.js';

export interface SubgraphServer {
  name: string;
  /** The GraphQL endpoint, for SUBGRAPH_<NAME>_URL. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The request context the gateway signed, with the site reloaded from the database. */
async function contextFrom(platform: Platform, name: string, request: FastifyRequest): Promise<RequestContext> {
  const claims = verifyContextToken(request.headers[CONTEXT_HEADER], platform.keys.subgraphSecret);
  const site = claims.siteId === null ? null : await siteRepository.refById(platform.pool, claims.siteId);
  if (claims.siteId !== null && !site) throw errors.tenantNotFound(claims.host);
  return {
    requestId: claims.requestId,
    principal: claims.principal,
    site,
    host: claims.host,
    baseUrl: claims.baseUrl,
    platform,
    log: platform.log.child({ requestId: claims.requestId, subgraph: name }),
  };
}

function sendGraphqlError(reply: FastifyReply, err: AppError): FastifyReply {
  const body = { errors: [formatGraphqlError({ message: err.message }, err)] };
  return reply.code(err.status).type('application/json').send(body);
}

export async function startSubgraphServer(
  platform: Platform,
  name: string,
  listen: { host?: string; port?: number } = {},
): Promise<SubgraphServer> {
  const server = new ApolloServer<SubgraphContext>({
    schema: buildSubgraph(name),
    formatError: formatGraphqlError,
    includeStacktraceInErrorResponses: false,
    stopOnTerminationSignals: false,
    // Inline traces are for Apollo's hosted reporting, which this platform does not use.
    plugins: [ApolloServerPluginLandingPageDisabled(), ApolloServerPluginInlineTraceDisabled(), internalErrorLogger(name)],
  });
  await server.start();
  const app = Fastify({ logger: false, bodyLimit: platform.config.bodyLimitBytes });
  app.addHook('onClose', async () => {
    await server.stop();
  });
  app.get('/healthz', async () => ({ status: 'ok', subgraph: name }));
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    let ctx: RequestContext;
    try {
      ctx = await contextFrom(platform, name, request);
    } catch (e) {
      if (e instanceof AppError) return sendGraphqlError(reply, e);
      throw e;
    }
    if (!isMultipartRequest(request.headers)) return executeGraphql(server, request, reply, async () => createSubgraphContext(ctx));
    // A fetch with files, forwarded by the gateway (gateway/graphql/upload-source.ts).
    if (request.method !== 'POST' || !hasPreflightHeader(request.headers)) return sendGraphqlError(reply, preflightMissing());
    let operations;
    try {
      operations = await readMultipartOperations(request.raw, reply.raw, platform.config.bodyLimitBytes);
    } catch (e) {
      if (e instanceof AppError) return sendGraphqlError(reply, e);
      throw e;
    }
    try {
      return await executeGraphql(server, request, reply, async () => createSubgraphContext(ctx), operations);
    } finally {
      discardUploads(operations);
    }
  };
  // Multipart bodies are left unread for graphql-upload-minimal.
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
  // Both `/graphql` and `/`, so that SUBGRAPH_<NAME>_URL may name either.
  app.route({ method: ['GET', 'POST'], url: '/graphql', handler });
  app.route({ method: ['GET', 'POST'], url: '/', handler });
  const host = listen.host ?? '127.0.0.1';
  await app.listen({ host, port: listen.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (listen.port ?? 0);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { name, url: `http://${urlHost}:${port}/graphql`, port, close: () => app.close() };
}

function parseArgs(argv: string[]): { name: string; port?: number } {
  const rest = [...argv];
  let port: number | undefined;
  const i = rest.indexOf('--port');
  if (i !== -1) {
    port = Number(rest[i + 1]);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port needs a port number, got "${rest[i + 1]}"`);
    rest.splice(i, 2);
  }
  const name = rest[0];
  if (!name || !isSubgraphName(name)) throw new Error(`Name one subgraph: ${SUBGRAPH_NAMES.join(', ')}.`);
  return { name, port };
}

let where: Parameters<typeof describeStartupError>[1] = {};

async function main(): Promise<void> {
  let args;
  let config;
  try {
    args = parseArgs(process.argv.slice(2));
    config = loadConfig();
  } catch (e) {
    const prefix = e instanceof ConfigError ? 'Configuration error: ' : '';
    process.stderr.write(`${prefix}${(e as Error).message}\n`);
    process.exit(2);
  }
  const log = createLogger(config.logLevel).child({ subgraph: args.name });
  const configured = config.subgraphUrls[args.name];
  const port = args.port ?? (configured ? Number(new URL(configured).port) || config.port : config.port);
  where = { externalDatabase: !!config.databaseUrl, host: config.host, port };
  // Seeding (permissions, first superuser) is the gateway process's work; migrations run here too.
  const platform = await startPlatform(config, log, { modules: MODULES });
  const served = await startSubgraphServer(platform, args.name, { host: config.host, port });
  log.info({ url: served.url }, 'subgraph listening');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await served.close().catch((e) => log.error({ err: e.message }, 'closing HTTP server failed'));
    await platform.close().catch((e) => log.error({ err: e.message }, 'closing platform failed'));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`${describeStartupError(e, where)}\n`);
    process.exit(e instanceof ConfigError ? 2 : 1);
  });
}
