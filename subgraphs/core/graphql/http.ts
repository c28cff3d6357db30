// Fastify ↔ Apollo Server without an integration package: the request goes in as Apollo's
// HTTPGraphQLRequest, the answer (complete or streamed) comes back through the Fastify reply.
// Used by the gateway's /graphql and by the subgraph servers.
import { Readable } from 'node:stream';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Hands one Fastify request to Apollo Server and its answer back to Fastify. */
export async function executeGraphql<C extends BaseContext>(
  server: ApolloServer<C>,
  request: FastifyRequest,
  reply: FastifyReply,
  context: () => Promise<C>,
  /** The parsed body when Fastify did not parse it (a multipart request's `operations`). */
  body: unknown = request.body,
): Promise<FastifyReply> {
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  const q = request.url.indexOf('?');
  const res = await server.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: request.method.toUpperCase(),
      headers,
      search: q === -1 ? '' : request.url.slice(q),
      body,
    },
    context,
  });
  for (const [key, value] of res.headers) reply.header(key, value);
  reply.code(res.status ?? 200);
  if (res.body.kind === 'complete') return reply.send(res.body.string);
  return reply.send(Readable.from(res.body.asyncIterator));
}
