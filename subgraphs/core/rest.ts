// The shape of a REST route, shared by the modules that declare routes and the edge that
// mounts them (gateway/rest/register.ts). Handlers are adapters: parse input, call one service
// function, shape output.
import type { RequestContext } from './context.js';
import type { AppError } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A module's REST error envelope (the seeds differ per module): the body for one AppError.
 * Modules without one answer in the console envelope `{detail, code, status_code}`.
 */
export type RestErrorRenderer = (err: AppError) => Record<string, unknown>;

export interface RestInput {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  cookies: Record<string, string | undefined>;
  /** Path and query string as received, for links (pagination). */
  url: string;
  /** The request stream, on `rawBody` routes only. */
  raw?: import('node:http').IncomingMessage;
}

export interface CookieSpec {
  name: string;
  value: string;
  httpOnly?: boolean;
  maxAgeSec?: number;
  clear?: boolean;
}

/**
 * A handler returns a plain body (sent with the route's status) or a RestResult. A RestResult's
 * body may be a Readable stream or a Buffer (downloads): it is sent as is, with the content type
 * the result's headers name.
 */
export class RestResult {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    readonly cookies: CookieSpec[] = [],
  ) {}
}

export interface RouteSpec {
  method: HttpMethod;
  /** Path under /api, with `:name` parameters and a trailing slash, e.g. `/organizations/:org/`. */
  path: string;
  /**
   * console: any host, mounted under both /api/ and /api/cloud/;
   * site: needs a tenant host (400 tenant_required on a platform host);
   * any: any host, /api/ only.
   */
  scope: 'console' | 'site' | 'any';
  /** required: 401 without credentials; optional: anonymous allowed. */
  auth: 'required' | 'optional';
  /** The auth limit applies on top of the standard one (sign-in attempts). */
  rateLimit?: 'auth';
  /** Session-authenticated unsafe requests need a CSRF token, except on these routes. */
  csrfExempt?: boolean;
  status?: number;
  /** The module (subgraph) that owns the service function; its manifest's error envelope applies. */
  module: string;
  /**
   * The permission codename the service checks for this route (e.g. `storage:read`), or null
   * when the route needs no permission beyond its `auth` (sign-in, one's own profile, staff-only
   * rules checked otherwise). The permission-matrix test walks these declarations.
   */
  permission?: string | null;
  summary: string;
  /**
   * JSON Schema of the JSON request body, for the OpenAPI document (gateway/rest/openapi.ts):
   * the schema the service validates the body with. Documentation only: validation stays in
   * the service, so REST and GraphQL check the same way.
   */
  requestSchema?: Record<string, unknown>;
  /**
   * JSON Schema of the success body (status `status`): Fastify then serializes it with a
   * compiled serializer, which is faster than JSON.stringify and drops undeclared fields.
   */
  responseSchema?: Record<string, unknown>;
  /**
   * The body is not parsed or buffered: `input.body` is undefined and `input.raw` is the request
   * stream, read by the handler as it arrives (uploads). Fastify's body limit does not apply; the
   * handler enforces its own. An error answered before the body was read closes the connection.
   */
  rawBody?: boolean;
  handler: (ctx: RequestContext, input: RestInput) => Promise<unknown>;
}

export const API_PREFIX = '/api';
export const CLOUD_PREFIX = '/api/cloud';

/** Every concrete path a spec is served on. */
export function mountedPaths(spec: Pick<RouteSpec, 'path' | 'scope'>): string[] {
  const paths = [API_PREFIX + spec.path];
  if (spec.scope === 'console' && !spec.path.startsWith('/cloud/')) paths.push(CLOUD_PREFIX + spec.path);
  return paths;
}
