// GET /metrics for operators (issue 11 item 6, DECISIONS §11): Prometheus text from prom-client.
// Every label has a bounded set of values, and none names a tenant, a user or a raw URL:
// requests by route pattern (the Fastify route, "unmatched" for paths no route serves),
// method and status; GraphQL operations by name (the first MAX_OPERATION_NAMES names seen in
// valid documents, then "other"), type and outcome; the database pool; Node's own process
// metrics (memory, event-loop lag, GC). Access: docs/operations.md "Metrics".
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApolloServerPlugin } from '@apollo/server';
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import type { Platform } from '../subgraphs/core/platform.js';
import { AppError, errors } from '../subgraphs/core/errors.js';

/** Distinct GraphQL operation names that get their own label value. */
export const MAX_OPERATION_NAMES = 200;
const NAME_RE = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type GraphqlOutcome = 'success' | 'partial' | 'error';

let processRegistry: Registry | null = null;

/**
 * Node's own metrics (memory, event-loop lag, GC, handles) describe the process, and
 * prom-client cannot stop their monitors: one registry per process, made on first use, that
 * every app of the process (tests build many) reports beside its own.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 20 });
  }
  return processRegistry;
}

type RequestLabels = { method: string; route: string; status: string };

/** One series of the request metrics: its labels, count, sum and (non-cumulative) bucket counts. */
interface RequestSeries {
  labels: RequestLabels;
  count: number;
  sum: number;
  buckets: number[];
}

/**
 * The request count and duration histogram, kept in one map entry per route, method and status
 * and turned into Prometheus series when scraped. prom-client's Counter and Histogram hash
 * their label object on every observation; a request then paid about 5 µs for its two
 * observations, here it pays one map lookup by a string key. The registry formats these
 * like its own metrics (registerMetric with get()).
 */
class RequestMetrics {
  private readonly series = new Map<string, RequestSeries>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Array(DURATION_BUCKETS.length).fill(0) };
      this.series.set(key, s);
    }
    s.count++;
    s.sum += seconds;
    for (let i = 0; i < DURATION_BUCKETS.length; i++) {
      if (seconds <= DURATION_BUCKETS[i]) {
        s.buckets[i]++;
        break;
      }
    }
  }

  /** The two metrics for a prom-client registry. */
  metrics(): Array<{ name: string; help: string; type: string; get(): Promise<unknown> }> {
    const all = () => [...this.series.values()];
    const total = {
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status.',
      type: 'counter',
      get: async () => ({
        name: total.name,
        help: total.help,
        type: total.type,
        aggregator: 'sum',
        values: all().map((s) => ({ labels: s.labels, value: s.count })),
      }),
    };
    const durations = {
      name: 'http_request_duration_seconds',
      help: 'Time from the request arriving to its answer, by route pattern, method and status.',
      type: 'histogram',
      get: async () => ({
        name: durations.name,
        help: durations.help,
        type: durations.type,
        aggregator: 'sum',
        values: all().flatMap((s) => {
          let acc = 0;
          const bucket = `${durations.name}_bucket`;
          return [
            ...DURATION_BUCKETS.map((le, i) => ({ metricName: bucket, labels: { ...s.labels, le }, value: (acc += s.buckets[i]) })),
            { metricName: bucket, labels: { ...s.labels, le: '+Inf' }, value: s.count },
            { metricName: `${durations.name}_sum`, labels: s.labels, value: s.sum },
            { metricName: `${durations.name}_count`, labels: s.labels, value: s.count },
          ];
        }),
      }),
    };
    return [total, durations];
  }
}

export class PlatformMetrics {
  readonly registry = new Registry();
  private readonly process = processMetrics();
  private readonly names = new Set<string>();
  private readonly requests = new RequestMetrics();
  private readonly operations: Counter<'operation' | 'type' | 'outcome'>;

  constructor(platform: Pick<Platform, 'pool'>) {
    const registers = [this.registry];
    for (const m of this.requests.metrics()) this.registry.registerMetric(m as unknown as Metric);
    this.operations = new Counter({
      name: 'graphql_operations_total',
      help: `GraphQL operations by name (the first ${MAX_OPERATION_NAMES} names of valid documents, then "other"), type and outcome.`,
      labelNames: ['operation', 'type', 'outcome'],
      registers,
    });
    const pool = platform.pool;
    const poolGauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    poolGauge('db_pool_connections', 'Connections the platform database pool holds (idle and in use).', () => pool.totalCount);
    poolGauge('db_pool_connections_idle', 'Idle connections in the platform database pool.', () => pool.idleCount);
    poolGauge('db_pool_waiting_requests', 'Queries waiting for a connection of the platform database pool.', () => pool.waitingCount);
  }

  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    this.requests.observe(METHODS.has(method) ? method : 'other', route ?? 'unmatched', status, seconds);
  }

  /**
   * `valid`: the document parsed and validated, so the name is a real operation's. Names are
   * admitted up to MAX_OPERATION_NAMES, so a client inventing names cannot grow the series.
   */
  observeOperation(name: string | null | undefined, type: string | undefined, outcome: GraphqlOutcome, valid: boolean): void {
    let operation = 'anonymous';
    if (!valid) operation = 'invalid';
    else if (name && NAME_RE.test(name)) {
      if (!this.names.has(name) && this.names.size < MAX_OPERATION_NAMES) this.names.add(name);
      operation = this.names.has(name) ? name : 'other';
    } else if (name) operation = 'other';
    const kind = type === 'query' || type === 'mutation' || type === 'subscription' ? type : 'unknown';
    this.operations.inc({ operation, type: kind, outcome });
  }

  /** The Prometheus text of the process's and this app's metrics. */
  async text(): Promise<string> {
    return `${await this.process.metrics()}\n${await this.registry.metrics()}`;
  }

  /** Apollo Server plugin: the operations that take Apollo Server's way (the fast path reports its own). */
  apolloPlugin(): ApolloServerPlugin {
    return {
      requestDidStart: async () => ({
        willSendResponse: async ({ operation, operationName, request, response }) => {
          if (response.body.kind !== 'single') return;
          const { data, errors: errs } = response.body.singleResult;
          const outcome: GraphqlOutcome = !errs?.length ? 'success' : data ? 'partial' : 'error';
          const name = operation ? (operation.name?.value ?? operationName) : request.operationName;
          this.observeOperation(name, operation?.operation, outcome, Boolean(operation));
        },
      }),
    };
  }
}

/** Constant-time comparison of a presented token with the configured one. */
function tokenMatches(presented: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(presented).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Without METRICS_TOKEN, only a client on this machine talking to the process directly may
 * read: a loopback peer and no proxy header (a local reverse proxy would make every public
 * client look local).
 */
function localDirect(request: FastifyRequest): boolean {
  const peer = request.raw.socket.remoteAddress ?? '';
  return LOOPBACK.has(peer) && request.headers['x-forwarded-for'] === undefined && request.headers.forwarded === undefined;
}

/** The refusal for a request that may not read the metrics, or null. */
function refusal(request: FastifyRequest, token: string | null): AppError | null {
  if (token === null) return localDirect(request) ? null : errors.notFound(`No route for ${request.method} /metrics.`);
  const header = request.headers.authorization;
  const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) {
    return new AppError({
      code: 'not_authenticated',
      status: 401,
      message: 'A Bearer token (METRICS_TOKEN) is required to read the metrics.',
      headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
    });
  }
  return tokenMatches(m[1], token) ? null : errors.permissionDenied('This token may not read the metrics.');
}

export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: PlatformMetrics,
  token: string | null,
  sendError: (reply: FastifyReply, err: AppError) => FastifyReply,
): void {
  app.get('/metrics', { config: { noTenant: true, bare: true } }, async (request, reply) => {
    const refused = refusal(request, token);
    if (refused) return sendError(reply, refused);
    const text = await metrics.text();
    return reply.header('Cache-Control', 'no-store').type(metrics.registry.contentType).send(text);
  });
}
