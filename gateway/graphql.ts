// GraphQL at /graphql: Apollo Gateway over the committed supergraph (schema/supergraph.graphql),
// inside Apollo Server, executed from a Fastify route with the edge's request context.
// Each subgraph runs in-process (LocalGraphQLDataSource, no HTTP hop) unless
// SUBGRAPH_<NAME>_URL says where it is served; then the gateway reaches it over HTTP and
// sends the request context as a signed header.
import {
  ApolloGateway,
  LocalGraphQLDataSource,
  RemoteGraphQLDataSource,
  type GraphQLDataSource,
  type GraphQLDataSourceProcessOptions,
} from '@apollo/gateway';

import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../subgraphs/core/platform.js';
import { CONTEXT_HEADER, signContextToken } from '../subgraphs/core/graphql/context-token.js';
import { formatGraphqlError, internalErrorLogger } from '../subgraphs/core/graphql/errors.js';
import { ConfigError } from '../subgraphs/core/config.js';
import { buildSubgraph, isSubgraphName, readSupergraph, SUBGRAPH_NAMES } from '../subgraphs/registry.js';
import { createSubgraphContext, type SubgraphContext } from '../subgraphs/core/graphql/context.js';
import { executeGraphql } from '../subgraphs/core/graphql/http.js';

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
}

function dataSource(platform: Platform, name: string): GraphQLDataSource<SubgraphContext> {
  if (!isSubgraphName(name)) throw new Error(`The supergraph names an unknown subgraph "${name}"; run npm run compose.`);
  const url = platform.config.subgraphUrls[name];
  if (url) return new SignedRemoteDataSource(url, platform.keys.subgraphSecret);
  return new LocalGraphQLDataSource<SubgraphContext>(buildSubgraph(name));
}

export async function createGraphqlServer(platform: Platform): Promise<ApolloServer<SubgraphContext>> {
  for (const name of Object.keys(platform.config.subgraphUrls)) {
    if (!isSubgraphName(name)) {
      throw new ConfigError(`SUBGRAPH_${name.toUpperCase()}_URL`, `no module "${name}" has a subgraph (${SUBGRAPH_NAMES.join(', ')})`);
    }
  }
  const log = platform.log.child({ component: 'graphql' });
  const gateway = new ApolloGateway({
    supergraphSdl: readSupergraph(),
    buildService: ({ name }) => dataSource(platform, name),
    logger: log,
  });
  const server = new ApolloServer<SubgraphContext>({
    gateway,
    formatError: formatGraphqlError,
    includeStacktraceInErrorResponses: false,
    // The schema is public (it is committed), and Sandbox needs it in every environment.
    introspection: true,
    // The platform's own shutdown closes Fastify, whose onClose hook stops the server.
    stopOnTerminationSignals: false,
    plugins: [
      ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: true, footer: false }),
      internalErrorLogger('gateway'),
    ],
  });
  await server.start();
  const remote = Object.keys(platform.config.subgraphUrls);
  log.info({ mode: remote.length ? 'distributed' : 'in-process', remote }, 'graphql gateway ready');
  return server;
}

export async function registerGraphql(app: FastifyInstance, platform: Platform): Promise<void> {
  const server = await createGraphqlServer(platform);
  app.addHook('onClose', async () => {
    await server.stop();
  });
  // An ordinary route: the edge hooks have already resolved the tenant, authenticated the
  // caller and counted the rate limit, and left the result in request.ctx.
  app.route({
    method: ['GET', 'POST'],
    url: '/graphql',
    handler: (request, reply) => executeGraphql(server, request, reply, async () => createSubgraphContext(request.ctx)),
  });
}
