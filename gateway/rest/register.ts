// Mounts the declarative route table on Fastify. REST handlers call service functions
// directly: no gateway, no loopback HTTP.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../subgraphs/core/errors.js';
import { mountedPaths, RestResult, type RestInput, type RouteSpec } from '../../subgraphs/core/rest.js';

/** The status of a route's success answer when its handler returns a plain body. */
export function defaultStatus(spec: RouteSpec): number {
  if (spec.status) return spec.status;
  if (spec.method === 'DELETE') return 204;
  return spec.method === 'POST' ? 201 : 200;
}

function send(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  if (status === 204 || body === undefined) return reply.code(status).send();
  if (body instanceof Readable || Buffer.isBuffer(body)) return reply.code(status).send(body);
  return reply.code(status).type('application/json').send(body);
}

export function makeHandler(spec: RouteSpec) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = request.ctx;
    if (spec.scope === 'site' && !ctx.site) throw errors.tenantRequired();
    if (spec.auth === 'required' && ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
    // Fastify parses text/plain into a string; table routes take JSON bodies (raw uploads need
    // a parser of their own that yields a Buffer or a stream), so a string body is the wrong type.
    if (typeof request.body === 'string') {
      throw errors.unsupportedMediaType(
        String(request.headers['content-type'] ?? 'unknown')
          .split(';')[0]
          .slice(0, 100),
      );
    }
    const input: RestInput = {
      params: request.params as Record<string, string>,
      query: request.query as RestInput['query'],
      body: request.body,
      headers: request.headers,
      cookies: request.cookies ?? {},
      url: request.url,
      raw: spec.rawBody ? request.raw : undefined,
    };
    let out: unknown;
    try {
      out = await spec.handler(ctx, input);
    } catch (e) {
      // An upload refused before its end: answer, then close instead of reading the rest.
      if (spec.rawBody && !request.raw.complete) reply.header('Connection', 'close');
      throw e;
    }
    if (!(out instanceof RestResult)) return send(reply, defaultStatus(spec), out);
    reply.headers(out.headers);
    for (const c of out.cookies) {
      if (c.clear) reply.clearCookie(c.name, { path: '/' });
      else
        reply.setCookie(c.name, c.value, {
          path: '/',
          httpOnly: c.httpOnly ?? false,
          sameSite: 'lax',
          maxAge: c.maxAgeSec,
          secure: request.protocol === 'https',
        });
    }
    return send(reply, out.status, out.body);
  };
}

export function registerRestRoutes(app: FastifyInstance, routes: RouteSpec[]): void {
  const raw = routes.filter((r) => r.rawBody);
  if (raw.length > 0) {
    // Raw-body routes live in a scope whose only content-type parser leaves the body unread.
    void app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      mount(scope, raw);
    });
  }
  mount(
    app,
    routes.filter((r) => !r.rawBody),
  );
}

function mount(app: FastifyInstance, routes: RouteSpec[]): void {
  for (const spec of routes) {
    for (const url of mountedPaths(spec)) {
      const schema = spec.responseSchema ? { response: { [defaultStatus(spec)]: spec.responseSchema } } : undefined;
      app.route({ method: spec.method, url, config: { spec }, schema, handler: makeHandler(spec) });
    }
  }
}
