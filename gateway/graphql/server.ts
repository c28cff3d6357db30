// GraphQL at /graphql: Apollo Gateway over the committed supergraph (schema/supergraph.graphql),
// inside Apollo Server, executed from a Fastify route with the edge's request context.
// Each subgraph runs in-process (LocalGraphQLDataSource, no HTTP hop) unless
// SUBGRAPH_<NAME>_URL says where it is served; then the gateway reaches it over HTTP and
// sends the request context as a signed header.
import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';

import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Platform } from '../../subgraphs/core/platform.js';
import { CONTEXT_HEADER, signContextToken } from '../../subgraphs/core/graphql/context-token.js';
import {
  formatGraphqlError,
  graphqlHttpStatus,
  internalErrorLogger,
  logInternalErrors,
  unavailableStatus,
} from '../../subgraphs/core/graphql/errors.js';
import { ConfigError } from '../../subgraphs/core/config.js';
import { buildSubgraph, isSubgraphName, readSupergraph, SUBGRAPH_NAMES } from '../../subgraphs/registry.js';
import { createSubgraphContext, type SubgraphContext } from '../../subgraphs/core/graphql/context.js';
import { executeGraphql } from '../../subgraphs/core/graphql/http.js';
import { CachedLocalDataSource } from './local-source.js';
import { carriesUploads, forwardMultipart } from './upload-source.js';
import {
  discardUploads,
  hasPreflightHeader,
  isMultipartRequest,
  preflightMissing,
  readMultipartOperations,
} from '../../subgraphs/core/graphql/uploads.js';
import { FastPath, responseType, type FastOperation, type OperationEntry, type ResolvedPlan } from './fast-path.js';
import { OperationLimits } from './limits.js';
import type { RateLimiter } from '../rate-limit.js';
import type { PlatformMetrics } from '../metrics.js';
import { isAppError, type AppError } from '../../subgraphs/core/errors.js';
import { explorerPage, wantsExplorer } from '../explorer.js';

/** A subgraph over HTTP: each fetch carries the request context, signed for the subgraph. */
class SignedRemoteDataSource extends RemoteGraphQLDataSource<SubgraphContext> {
  constructor(
    url: string,
    private readonly secret: string,
  ) {
    super({ url });
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<SubgraphContext>): void {
    if (context?.ctx) request.http?.headers.set(CONTEXT_HEADER, signContextToken(context.ctx, this.secret));
  }

  /** A fetch with files (uploadObject) goes to the subgraph as a multipart request (upload-source.ts). */
  override process(options: GraphQLDataSourceProcessOptions<SubgraphContext>) {
    if (!carriesUploads(options)) return super.process(options);
    const headers: Record<string, string> = {};
    if (options.context?.ctx) headers[CONTEXT_HEADER] = signContextToken(options.context.ctx, this.secret);
    return forwardMultipart(this.url!, options, headers);
  }
}

function dataSource(platform: Platform, name: string): GraphQLDataSource<SubgraphContext> {
  if (!isSubgraphName(name)) throw new Error(`The supergraph names an unknown subgraph "${name}"; run npm run compose.`);
  const url = platform.config.subgraphUrls[name];
  if (url) return new SignedRemoteDataSource(url, platform.keys.subgraphSecret);
  return new CachedLocalDataSource(buildSubgraph(name));
}

declare module 'fastify' {
  interface FastifyInstance {
    graphql: GraphqlServer;
  }
}

export interface GraphqlServer {
  apollo: ApolloServer<SubgraphContext>;
  gateway: ApolloGateway;
  fast: FastPath;
}

export async function createGraphqlServer(platform: Platform, metrics?: PlatformMetrics): Promise<GraphqlServer> {
  for (const name of Object.keys(platform.config.subgraphUrls)) {
    if (!isSubgraphName(name)) {
      throw new ConfigError(`SUBGRAPH_${name.toUpperCase()}_URL`, `no module "${name}" has a subgraph (${SUBGRAPH_NAMES.join(', ')})`);
    }
  }
  const log = platform.log.child({ component: 'graphql' });
  const sources = new Map<string, GraphQLDataSource<SubgraphContext>>();
  const gateway: ApolloGateway = new ApolloGateway({
    supergraphSdl: readSupergraph(),
    buildService: ({ name }) => {
      const source = dataSource(platform, name);
      sources.set(name, source);
      return source;
    },
    logger: log,
    experimental_didResolveQueryPlan: (resolved) => fast.learn(resolved as unknown as ResolvedPlan),
  });
  const fast = new FastPath(sources, () => gateway.schema);
  const server = new ApolloServer<SubgraphContext>({
    gateway,
    formatError: formatGraphqlError,
    includeStacktraceInErrorResponses: false,
    // The schema is public (it is committed), and the IDEs need it in every environment.
    introspection: true,
    // The platform's own shutdown closes Fastify, whose onClose hook stops the server.
    stopOnTerminationSignals: false,
    plugins: [
      // GET /graphql?ide=sandbox from a browser (the IDE at plain GET /graphql is explorer.ts).
      ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: true, footer: false }),
      internalErrorLogger('gateway'),
      unavailableStatus(),
      ...(metrics ? [metrics.apolloPlugin() as ApolloServerPlugin<SubgraphContext>] : []),
    ],
  });
  await server.start();
  const remote = Object.keys(platform.config.subgraphUrls);
  log.info({ mode: remote.length ? 'distributed' : 'in-process', remote }, 'graphql gateway ready');
  return { apollo: server, gateway, fast };
}

interface GraphqlBody {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** A single JSON POST of a query document (no batch, no persisted-query or other extensions). */
function plainBody(request: FastifyRequest): GraphqlBody | null {
  if (request.method !== 'POST') return null;
  const type = request.headers['content-type'];
  if (typeof type !== 'string' || !type.startsWith('application/json')) return null;
  const body = request.body as Record<string, unknown> | null;
  if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.query !== 'string' || body.extensions !== undefined) {
    return null;
  }
  const { operationName, variables } = body;
  if (operationName != null && typeof operationName !== 'string') return null;
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
  return body as unknown as GraphqlBody;
}

/** The short way (fast-path.ts) for a plain POST whose operation has one; false when this request takes Apollo Server's. */
// Answers true when it sent the answer (not the reply itself: a Fastify reply is a thenable,
// which an async function would wait for).
async function executeFast(
  graphql: GraphqlServer,
  op: FastOperation,
  body: GraphqlBody,
  request: FastifyRequest,
  reply: FastifyReply,
  metrics: PlatformMetrics | undefined,
): Promise<boolean> {
  const type = responseType(request.headers.accept);
  if (!type) return false;
  const context = createSubgraphContext(request.ctx);
  const result = await graphql.fast.execute(op, body.variables ?? undefined, context);
  if (!result) return false;
  const outcome = !result.errors?.length ? 'success' : result.data ? 'partial' : 'error';
  metrics?.observeOperation(op.operation.name?.value ?? op.operationName, op.operation.operation, outcome, true);
  let errors;
  if (result.errors?.length) {
    logInternalErrors('gateway', result.errors, context);
    // Without locations, as the gateway reports a subgraph's errors.
    errors = result.errors.map((e) => formatGraphqlError({ message: e.message, path: e.path, extensions: e.extensions }, e));
  }
  reply
    .code(graphqlHttpStatus(result.data, errors) ?? 200)
    .type(type)
    .send(JSON.stringify({ errors, data: result.data }) + '\n');
  return true;
}

interface Document {
  query: string;
  operationName: string | null | undefined;
  /** Its cache entry, when the caller already looked it up. */
  entry?: OperationEntry;
}

/** The documents of a request (one, or a batch), as far as they can be read before Apollo Server does. */
function documentsOf(request: FastifyRequest, body: unknown): Document[] {
  let items: unknown[];
  if (request.method === 'GET') items = [request.query];
  else if (Array.isArray(body)) items = body;
  else items = [body];
  const out = [];
  for (const item of items) {
    const { query, operationName } = (item ?? {}) as Record<string, unknown>;
    if (typeof query === 'string') out.push({ query, operationName: typeof operationName === 'string' ? operationName : undefined });
  }
  return out;
}

function sendGraphqlError(reply: FastifyReply, err: AppError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  return reply
    .code(err.status)
    .type('application/json; charset=utf-8')
    .send({ errors: [formatGraphqlError({ message: err.message }, err)] });
}

/**
 * Limits (limits.ts) and the write rate limit, before any execution: a refused document or
 * a mutation over the write limit refuses the whole request.
 */
async function admit(
  limits: OperationLimits,
  limiter: RateLimiter | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  documents: Document[],
): Promise<AppError | null> {
  let writes = 0;
  for (const doc of documents) {
    const verdict = limits.check(doc.query, doc.operationName, doc.entry);
    if (!verdict.ok) return verdict.error;
    writes += verdict.summary?.mutations ?? 0;
  }
  if (writes > 0 && limiter) {
    try {
      await limiter.enforceWrites(request, reply, writes);
    } catch (e) {
      if (isAppError(e)) return e;
      throw e;
    }
  }
  return null;
}

export async function registerGraphql(
  app: FastifyInstance,
  platform: Platform,
  limiter?: RateLimiter,
  metrics?: PlatformMetrics,
): Promise<void> {
  const graphql = await createGraphqlServer(platform, metrics);
  const limits = new OperationLimits(platform.config.graphqlLimits, () => graphql.gateway.schema, graphql.fast);
  app.decorate('graphql', graphql);
  const server = graphql.apollo;
  app.addHook('onClose', async () => {
    await server.stop();
  });
  // An ordinary route: the edge hooks have already resolved the tenant, authenticated the
  // caller and counted the rate limit, and left the result in request.ctx.
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    // A browser opening /graphql gets the IDE (?ide=sandbox: Apollo Sandbox, from its CDN).
    if (wantsExplorer(request)) return reply.type('text/html; charset=utf-8').send(await explorerPage());
    if (isMultipartRequest(request.headers)) return executeMultipart(request, reply);
    // A plain POST (the common request): its document's cache entry is looked up once, for
    // the limits and the short way alike.
    const body = plainBody(request);
    const entry = body ? graphql.fast.entry(body.query, body.operationName) : undefined;
    const documents = body ? [{ query: body.query, operationName: body.operationName, entry }] : documentsOf(request, request.body);
    const refused = await admit(limits, limiter, request, reply, documents);
    if (refused) return sendGraphqlError(reply, refused);
    if (body && entry?.fast && (await executeFast(graphql, entry.fast, body, request, reply, metrics))) return reply;
    return executeGraphql(server, request, reply, async () => createSubgraphContext(request.ctx));
  };
  // A GraphQL multipart request (file uploads, subgraphs/core/graphql/uploads.ts): refused unless
  // it carries a preflight header, before any of its body is read; then the operations are
  // parsed and executed while the files stream on to the resolver (or the storage subgraph).
  const executeMultipart = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST' || !hasPreflightHeader(request.headers)) {
      reply.header('Connection', 'close');
      return sendGraphqlError(reply, preflightMissing());
    }
    let operations;
    try {
      operations = await readMultipartOperations(request.raw, reply.raw, platform.config.bodyLimitBytes);
    } catch (e) {
      if (!isAppError(e)) throw e;
      reply.header('Connection', 'close');
      return sendGraphqlError(reply, e);
    }
    try {
      const refused = await admit(limits, limiter, request, reply, documentsOf(request, operations));
      if (refused) return sendGraphqlError(reply, refused);
      return await executeGraphql(server, request, reply, async () => createSubgraphContext(request.ctx), operations);
    } finally {
      discardUploads(operations);
    }
  };
  // The route lives in a scope that also takes multipart/form-data, left unread for the above.
  void app.register(async (scope) => {
    scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
    scope.route({ method: ['GET', 'POST'], url: '/graphql', handler });
  });
}
