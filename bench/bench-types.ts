// The shape of a benchmark (bench/run.ts runs them; *.bench.ts files declare them).
import type { FastifyRequest } from 'fastify';
import type { Platform } from '../subgraphs/core/platform.js';
import type { User } from '../subgraphs/tenancy/user.repository.js';

/** What a benchmark needs from the running platform. */
export interface BenchEnv {
  platform: Platform;
  /** A signed-in user created for the run, and an access token for it. */
  user: User;
  token: string;
  /** The platform's base URL, for benchmarks that set up data through the API. */
  base: string;
}

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query under the server root, the same on both servers. */
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Benchmark {
  name: string;
  /** Data the benchmark needs (tables, records) and the request it repeats. */
  prepare: (env: BenchEnv) => Promise<Request>;
  /**
   * The bare side, when it is more than a route returning a fixed body: a handler doing the
   * same work with bare `pg` (the same rows by a direct query), built once per run.
   */
  bare?: (env: BenchEnv) => (request: FastifyRequest) => Promise<unknown>;
  /**
   * The cold-cache variant: many distinct requests (many callers, many rows or tables) that
   * every connection cycles through, so per-caller and per-object caches rarely hit. Both
   * sides get the same list; the bare side needs `bare` (it must answer every URL).
   */
  cold?: (env: BenchEnv) => Promise<Request[]>;
  /**
   * The REST request for the same read, measured on the platform in the same run: the line
   * then also shows its req/s and the platform side's ratio to it (GraphQL against REST).
   */
  rest?: (env: BenchEnv) => Promise<Request>;
  /** Top-level answer keys that differ per request by design (a run's key): not compared. */
  volatile?: string[];
  /** Items each request handles (a bulk write): the line then also shows items/s. */
  perRequest?: number;
}
