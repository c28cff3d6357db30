// The HTTP edge. Order of work per request: request id → tenant from Host → authentication
// → rate limits → route (REST table or GraphQL) → one JSON log line.
import crypto from 'node:crypto';
import Fastify, { type FastifyContextConfig, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import type { Logger } from 'pino';
import { createRequestLogger } from '../subgraphs/core/logger.js';
import { ANONYMOUS, type RequestContext } from '../subgraphs/core/context.js';
import { AppError, errors, isAppError } from '../subgraphs/core/errors.js';
import { isDatabaseUnavailable } from '../subgraphs/core/db-errors.js';
import type { Platform } from '../subgraphs/core/platform.js';
import { abortScope, RequestDbScope, runInScope } from '../subgraphs/core/request-db.js';
import { authenticate } from './auth/authenticate.js';
import { registerExplorer } from './explorer.js';
import { registerGraphql } from './graphql/server.js';
import { registerHealthRoutes } from './health.js';
import { PlatformMetrics, registerMetricsRoute } from './metrics.js';
import { RateLimiter } from './rate-limit.js';
import { checkUrlInput, registerJsonGuards } from './input-guards.js';
import { renderRestError } from './rest/render-error.js';
import { registerRestDocs } from './rest/docs.js';
import { registerRestRoutes } from './rest/register.js';
import { moduleErrorRenderer, ROUTES } from './rest/route-table.js';
import type { RestErrorRenderer, RouteSpec } from '../subgraphs/core/rest.js';
import { requestHost, resolveTenant } from './tenant.js';

declare module 'fastify' {
  interface FastifyRequest {
    dbScope: RequestDbScope;
    ctx: RequestContext;
    startedAt: bigint;
    /**
     * The matched route's config and URL pattern, read once: Fastify builds and freezes a new
     * `routeOptions` object on every access.
     */
    route: { config: FastifyContextConfig; url: string | undefined };
  }
  interface FastifyContextConfig {
    /** Set on REST table routes. */
    spec?: RouteSpec;
    /** Routes that work without a tenant lookup (health checks). */
    noTenant?: boolean;
    /** Routes that take no credentials and count no rate limit (health, JWKS). */
    bare?: boolean;
  }
}

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppOptions {
  /** Request logs go here (defaults to platform.log). */
  requestLog?: Logger;
}

/** The media type of a request, without parameters, short enough to echo in a message. */
function mediaType(request: FastifyRequest): string {
  const raw = request.headers['content-type'];
  return (typeof raw === 'string' ? raw.split(';')[0].trim() : '').slice(0, 100) || 'unknown';
}

const CLIENT_ERROR_CODES: Record<number, string> = {
  401: 'not_authenticated',
  403: 'permission_denied',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'throttled',
};

/**
 * Fastify's own client errors (bad JSON, wrong content type, body too large, router limits) as
 * platform errors with the platform's codes; anything else (null) is a server fault.
 */
function toAppError(err: unknown, request: FastifyRequest, bodyLimit: number): AppError | null {
  if (isAppError(err)) return err;
  const e = err as { code?: string; statusCode?: number; message?: string };
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(mediaType(request));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(bodyLimit);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.parse('The request body is empty but Content-Type is application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.parse('Content-Length does not match the body.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.parse('Malformed JSON in request body.');
  }
  if (e instanceof SyntaxError) return errors.parse('Malformed JSON in request body.');
  // Work refused or cancelled because the request passed its deadline or lost its client,
  // whatever layer (Prisma, a driver) wrapped the error on the way.
  if (request.dbScope?.reason) return request.dbScope.error();
  // The database (or the connection to it) is down: the client may retry, nothing is wrong
  // with its request.
  if (isDatabaseUnavailable(err)) return errors.unavailable('The database is not available; try again shortly.');
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    // Other 4xx from Fastify or a plugin: their messages are written for clients.
    const code = CLIENT_ERROR_CODES[e.statusCode] ?? 'invalid';
    return new AppError({ code, status: e.statusCode, message: e.message || 'Bad request.' });
  }
  return null;
}

const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Methods served on a concrete path, to tell 405 (known path, other method) from 404. */
function allowedMethods(app: FastifyInstance, path: string): string[] {
  return ROUTE_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}

export function sendError(reply: FastifyReply, err: AppError, renderer?: RestErrorRenderer): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.status).type('application/json').send(renderRestError(err, renderer));
}

export async function buildApp(platform: Platform, opts: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = platform;
  const requestLog = opts.requestLog ?? createRequestLogger(platform.log);
  const app = Fastify({
    logger: false,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  });
  const limiter = new RateLimiter(platform);
  const metrics = new PlatformMetrics(platform);

  await app.register(cookie);
  registerJsonGuards(app, config.jsonMaxDepth);

  app.decorateRequest('ctx', null as unknown as RequestContext);
  app.decorateRequest('dbScope', null as unknown as RequestDbScope);

  // The request's database work stops at its deadline or when its client goes away
  // (subgraphs/core/request-db.ts). Streamed bodies (uploads) are not bound by the deadline:
  // their time is the client's transfer, not database work.
  app.addHook('onRequest', (request, reply, done) => {
    const scope = new RequestDbScope(config.requestTimeoutMs);
    request.dbScope = scope;
    const streamed = /^(multipart\/|application\/octet-stream)/i.test(request.headers['content-type'] ?? '');
    const timer = streamed ? null : setTimeout(() => void abortScope(scope, 'deadline', platform.databaseUrl), config.requestTimeoutMs);
    timer?.unref();
    reply.raw.once('close', () => {
      if (timer) clearTimeout(timer);
      // Ended by us (writableEnded) is a finished request, whether or not the bytes were flushed
      // (light-my-request's response never reports writableFinished); else the client left early.
      if (!reply.raw.writableEnded) void abortScope(scope, 'disconnect', platform.databaseUrl);
    });
    done();
  });
  app.decorateRequest('startedAt', 0n);
  app.decorateRequest('route', null as unknown as FastifyRequest['route']);

  app.addHook('onRequest', async (request, reply) => {
    request.startedAt = process.hrtime.bigint();
    const incoming = request.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID_RE.test(incoming) ? incoming : crypto.randomUUID();
    reply.header('X-Request-Id', requestId);
    const host = requestHost(request, config);
    const options = request.routeOptions;
    const routeConfig: FastifyContextConfig = options.config ?? {};
    request.route = { config: routeConfig, url: options.url };
    let childLog: Logger | undefined;
    request.ctx = {
      requestId,
      principal: ANONYMOUS,
      site: null,
      host,
      // Only links (pagination) need it.
      get baseUrl() {
        return `${request.protocol}://${request.headers[config.trustProxy && request.headers['x-forwarded-host'] ? 'x-forwarded-host' : 'host'] ?? host}`;
      },
      platform,
      // Most requests never log beyond their request line: make the child logger on first use.
      get log() {
        childLog ??= platform.log.child({ requestId });
        return childLog;
      },
    };
    checkUrlInput(request);
    if (routeConfig.noTenant) return;
    request.ctx.site = await resolveTenant(platform, host);
    if (routeConfig.bare) return;
    // A sign-in attempt is refused while its client address has no failed attempts left,
    // whatever credentials it carries (the target username is checked once the body is parsed).
    if (routeConfig.spec?.rateLimit === 'auth') await limiter.checkSignIn(request, reply);
    request.ctx.principal = await authenticate(platform, request);
    await limiter.enforce(request, reply);
  });

  // Handlers (and what they start) run in the request's scope; entered after the body is
  // parsed, as stream events do not carry the request's async context.
  app.addHook('preHandler', (request, reply, done) => runInScope(request.dbScope, done));

  // Sign-in routes: the auth limit reads the target username from the parsed body, and only
  // failed attempts spend it (gateway/rate-limit.ts).
  app.addHook('preHandler', (request, reply, done) => {
    if (request.route.config.spec?.rateLimit !== 'auth') return done();
    limiter.checkSignIn(request, reply).then(() => done(), done);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode !== 401 || request.route?.config.spec?.rateLimit !== 'auth') return done(null, payload);
    limiter.countFailedSignIn(request, reply).then(
      () => done(null, payload),
      () => done(null, payload),
    );
  });

  // Callback style: no promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    const ctx = request.ctx;
    const durationMs = Number(process.hrtime.bigint() - request.startedAt) / 1e6;
    metrics.observeRequest(request.method, request.route?.url, reply.statusCode, durationMs / 1000);
    requestLog.info(
      {
        requestId: ctx?.requestId,
        method: request.method,
        path: request.route?.url ?? request.url.split('?')[0],
        status: reply.statusCode,
        durationMs: Math.round(durationMs * 100) / 100,
        tenant: ctx?.site?.slug ?? null,
        userId: ctx && ctx.principal.kind === 'user' ? ctx.principal.uuid : null,
        apiKey: ctx && ctx.principal.kind === 'api_key' ? ctx.principal.keyId : undefined,
      },
      'request',
    );
    done();
  });

  app.setErrorHandler((err, request, reply) => {
    const style = moduleErrorRenderer((request.route?.config ?? request.routeOptions.config)?.spec);
    const appErr = toAppError(err, request, config.bodyLimitBytes);
    if (appErr) return sendError(reply, appErr, style);
    request.ctx?.log.error({ err: { message: (err as Error).message, stack: (err as Error).stack } }, 'unhandled error');
    return sendError(reply, errors.internal(), style);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = allowedMethods(app, path);
    // A route of this method that found nothing (a missing static file) is a 404 too.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (allowed.length > 0 && !allowed.includes(method as (typeof ROUTE_METHODS)[number])) {
      reply.header('Allow', [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', '));
      return sendError(reply, errors.methodNotAllowed(request.method));
    }
    return sendError(reply, errors.notFound(`No route for ${request.method} ${path}.`));
  });

  registerHealthRoutes(app, platform);
  registerMetricsRoute(app, metrics, config.metricsToken, sendError);
  (await import('./auth/jwks.route.js')).registerJwksRoute(app, platform);
  await registerGraphql(app, platform, limiter, metrics);
  registerRestRoutes(app, ROUTES);
  await registerExplorer(app);
  await registerRestDocs(app, ROUTES);
  return app;
}
