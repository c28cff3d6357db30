// Rate limits (DECISIONS §1). Three fixed-window limits, each from config.rateLimits:
//   standard: every request that reaches the limiter;
//   write:    additionally on unsafe methods;
//   auth:     failed sign-ins on sign-in routes (RouteSpec.rateLimit === 'auth'), counted per
//             client address AND per target username (both budgets must have room), whatever
//             Authorization header the attempt carries; a successful sign-in costs nothing,
//             so an office behind one address does not lock itself out (issue 10 item 3).
// Standard and write limits are counted per principal (user id, API key id), per client
// address when anonymous. Counters live in Redis when it is configured, so that several
// gateway processes share them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitSetting } from '../subgraphs/core/config.js';
import type { Principal } from '../subgraphs/core/context.js';
import { errors } from '../subgraphs/core/errors.js';
import type { Platform } from '../subgraphs/core/platform.js';

export type LimitName = 'standard' | 'write' | 'auth';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// GraphQL sends reads as POST too: counting every query as a write would throttle reads at the
// write rate. Mutations are for the GraphQL layer to count (see docs/conventions.md).
const WRITE_EXEMPT_URLS = new Set(['/graphql']);

interface Limit {
  name: LimitName;
  points: number;
  limiter: RateLimiterAbstract;
}

interface Outcome {
  limit: Limit;
  remaining: number;
  msBeforeNext: number;
  rejected: boolean;
}

export interface RateLimiterOptions {
  /** Namespace of the counters; defaults to one per platform database (see defaultKeyPrefix). */
  keyPrefix?: string;
}

/**
 * Processes that share a database are one deployment and must share counters; deployments
 * on other databases that happen to share a Redis must not. The database name draws that line
 * without putting credentials or host names into Redis keys.
 */
export function defaultKeyPrefix(databaseUrl: string): string {
  let name = 'platform';
  try {
    name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, '')) || name;
  } catch {
    // keep the fallback: a malformed URL never reaches here in practice (config validates it)
  }
  return `rl:${name}`;
}

/** Who a request is counted against. */
export function clientKey(principal: Principal, ip: string): string {
  switch (principal.kind) {
    case 'user':
      return `u:${principal.uuid}`;
    case 'api_key':
      return `k:${principal.keyId}`;
    default:
      return `ip:${ip}`;
  }
}

const NO_LIMITS: Limit[] = [];

export class RateLimiter {
  private readonly limits = new Map<LimitName, Limit>();
  private lastStoreWarning = 0;

  constructor(
    private readonly platform: Platform,
    opts: RateLimiterOptions = {},
  ) {
    const prefix = opts.keyPrefix ?? defaultKeyPrefix(platform.databaseUrl);
    const settings = platform.config.rateLimits;
    for (const name of ['standard', 'write', 'auth'] as const) {
      const limit = this.build(name, settings[name], `${prefix}:${name}`);
      if (limit) this.limits.set(name, limit);
    }
  }

  private build(name: LimitName, setting: RateLimitSetting, keyPrefix: string): Limit | null {
    if (setting === 'off') return null;
    const base = { points: setting.points, duration: setting.durationSec, keyPrefix };
    const redis = this.platform.redis;
    // With Redis down, counting falls back to this process's memory rather than failing
    // every request or letting every request through.
    const limiter = redis
      ? new RateLimiterRedis({ ...base, storeClient: redis, insuranceLimiter: new RateLimiterMemory(base) })
      : new RateLimiterMemory(base);
    return { name, points: setting.points, limiter };
  }

  /** The limits a request counts against, in the order they are reported. */
  applicable(request: FastifyRequest): Limit[] {
    if (this.limits.size === 0) return NO_LIMITS;
    const out: Limit[] = [];
    const add = (name: LimitName) => {
      const limit = this.limits.get(name);
      if (limit) out.push(limit);
    };
    add('standard');
    const url = request.route.url ?? '';
    if (UNSAFE_METHODS.has(request.method) && !WRITE_EXEMPT_URLS.has(url)) add('write');
    return out;
  }

  /** The sign-in budgets an attempt draws on: its client address and, when named, its target username. */
  private signInKeys(request: FastifyRequest): string[] | null {
    if (request.route.config.spec?.rateLimit !== 'auth' || !this.limits.has('auth')) return null;
    const keys = [`ip:${request.ip}`];
    const body = request.body as { username?: unknown } | undefined;
    const username = body && typeof body === 'object' ? body.username : undefined;
    if (typeof username === 'string' && username.trim()) keys.push(`user:${username.trim().toLowerCase().slice(0, 200)}`);
    return keys;
  }

  /**
   * Before a sign-in route's handler (the body is parsed): 429 when the client address or the
   * target username has no failed attempts left. Reads the counters without spending them.
   */
  async checkSignIn(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const keys = this.signInKeys(request);
    if (!keys) return;
    const limit = this.limits.get('auth')!;
    let remaining = limit.points;
    let waitMs = 0;
    for (const key of keys) {
      const res = await limit.limiter.get(key).catch(() => null);
      if (!res) continue;
      remaining = Math.min(remaining, Math.max(0, limit.points - res.consumedPoints));
      if (res.consumedPoints >= limit.points) waitMs = Math.max(waitMs, res.msBeforeNext);
    }
    reply.header('X-RateLimit-Limit', String(limit.points));
    reply.header('X-RateLimit-Remaining', String(remaining));
    if (waitMs > 0) throw errors.throttled(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  /** After a refused sign-in (401): one failed attempt against each of its budgets. */
  async countFailedSignIn(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const keys = this.signInKeys(request);
    if (!keys) return;
    const limit = this.limits.get('auth')!;
    const outcomes = await Promise.all(keys.map((key) => this.consume(limit, key)));
    const counted = outcomes.filter((o): o is Outcome => o !== null);
    if (counted.length === 0) return;
    reply.header('X-RateLimit-Limit', String(limit.points));
    reply.header('X-RateLimit-Remaining', String(Math.min(...counted.map((o) => o.remaining))));
  }

  async enforce(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const limits = this.applicable(request);
    if (limits.length === 0) return;
    const key = clientKey(request.ctx.principal, request.ip);
    const outcomes = (await Promise.all(limits.map((l) => this.consume(l, key)))).filter((o): o is Outcome => o !== null);
    if (outcomes.length === 0) return;
    const tightest = mostConstrained(outcomes);
    reply.header('X-RateLimit-Limit', String(tightest.limit.points));
    reply.header('X-RateLimit-Remaining', String(tightest.remaining));
    const rejected = outcomes.filter((o) => o.rejected);
    if (rejected.length > 0) {
      const waitMs = Math.max(...rejected.map((o) => o.msBeforeNext));
      throw errors.throttled(Math.max(1, Math.ceil(waitMs / 1000)));
    }
  }

  /**
   * Counts `points` writes against the write limit (GraphQL: one per mutation field of the
   * operation); throws `throttled` when they do not fit, so the whole operation is refused.
   */
  async enforceWrites(request: FastifyRequest, reply: FastifyReply, points: number): Promise<void> {
    const limit = this.limits.get('write');
    if (!limit || points <= 0) return;
    const outcome = await this.consume(limit, clientKey(request.ctx.principal, request.ip), points);
    if (!outcome) return;
    reply.header('X-RateLimit-Limit', String(limit.points));
    reply.header('X-RateLimit-Remaining', String(outcome.remaining));
    if (outcome.rejected) throw errors.throttled(Math.max(1, Math.ceil(outcome.msBeforeNext / 1000)));
  }

  private async consume(limit: Limit, key: string, points = 1): Promise<Outcome | null> {
    try {
      const res = await limit.limiter.consume(key, points);
      return { limit, remaining: res.remainingPoints, msBeforeNext: res.msBeforeNext, rejected: false };
    } catch (e) {
      if (e instanceof RateLimiterRes) {
        return { limit, remaining: 0, msBeforeNext: e.msBeforeNext, rejected: true };
      }
      // Both the store and its insurance failed: let the request through, say so (at most
      // once a minute, so a broken store does not flood the log).
      if (Date.now() - this.lastStoreWarning > 60_000) {
        this.lastStoreWarning = Date.now();
        this.platform.log.warn({ limit: limit.name, err: (e as Error)?.message }, 'rate limit store failed; not counted');
      }
      return null;
    }
  }
}

/** The limit closest to refusing: fewest points left, then the smallest limit. */
function mostConstrained(outcomes: Outcome[]): Outcome {
  return outcomes.reduce((best, o) =>
    o.remaining < best.remaining || (o.remaining === best.remaining && o.limit.points < best.limit.points) ? o : best,
  );
}
