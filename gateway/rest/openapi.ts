// The OpenAPI 3.1 document of the REST API, generated from the route table (route-table.ts):
// every served path and method, its parameters, the request and response schemas the table
// declares, the errors the edge and the owning module answer with, and the three ways to
// authenticate. Served at GET /api/openapi.json and browsed at GET /api/docs/ (docs.ts).
import { AppError } from '../../subgraphs/core/errors.js';
import { mountedPaths, type RestErrorRenderer, type RouteSpec } from '../../subgraphs/core/rest.js';
import { CSRF_HEADER, SESSION_COOKIE } from '../../subgraphs/auth/session.service.js';
import { defaultStatus } from './register.js';
import { renderConsoleError, renderRestError } from './render-error.js';

type Json = Record<string, unknown>;

export const OPENAPI_PATH = '/api/openapi.json';

/** `/apps/:app/objects/*` → `/apps/{app}/objects/{path}`, and the names of its parameters. */
export function openapiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path
    .split('/')
    .map((segment) => {
      if (segment === '*') {
        params.push('path');
        return '{path}';
      }
      if (segment.startsWith(':')) {
        const name = segment.slice(1);
        params.push(name);
        return `{${name}}`;
      }
      return segment;
    })
    .join('/');
  return { path: out, params };
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An access token from POST /api/auth/jwt/token/ (15 minutes; refresh at POST /api/auth/jwt/token/refresh/).',
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: "`Authorization: Api-Key <key>`: an app's key (POST /api/apps/{app}/api-keys/). Acts for that app, within its site only.",
  },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The session cookie set by POST /api/auth/session/login/ (HttpOnly, SameSite=Lax).',
  },
  csrf: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRFToken',
    description: `With the session cookie, unsafe methods (POST, PUT, PATCH, DELETE) need the value of the \`csrftoken\` cookie in \`${CSRF_HEADER}\`.`,
  },
};

/** Who may call a route: any one of the listed requirements (`{}` = anonymous). */
function security(spec: RouteSpec): Json[] {
  const session = UNSAFE.has(spec.method) && !spec.csrfExempt ? { session: [], csrf: [] } : { session: [] };
  const schemes: Json[] = [{ bearer: [] }, { apiKey: [] }, session];
  return spec.auth === 'optional' ? [...schemes, {}] : schemes;
}

/** A JSON Schema for the bodies a renderer produces: the keys and value types of sample errors. */
function envelopeSchema(render: (err: AppError) => Json, description: string): Json {
  const samples = [
    render(new AppError({ code: 'not_found', status: 404, message: 'Not found.' })),
    render(new AppError({ code: 'invalid', status: 400, message: 'Invalid input.', errors: { field: ['This field is required.'] } })),
  ];
  const types = new Map<string, Set<string>>();
  for (const body of samples) {
    for (const [key, value] of Object.entries(body)) {
      const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value;
      (types.get(key) ?? types.set(key, new Set()).get(key)!).add(type === 'number' ? 'integer' : type);
    }
  }
  const required = [...types.keys()].filter((key) => samples.every((s) => key in s));
  const properties = Object.fromEntries(
    [...types].map(([key, set]) => [key, set.size === 1 ? { type: [...set][0] } : { type: [...set].sort() }]),
  );
  return { type: 'object', description, properties, required, additionalProperties: true };
}

const schemaName = (module: string) => `${module[0].toUpperCase()}${module.slice(1)}Error`;

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input (`invalid`, with field errors), malformed body (`parse_error`), or a site route called on a platform host (`tenant_required`).',
  401: 'No credentials (`not_authenticated`) or wrong ones (`authentication_failed`, `token_not_valid`).',
  403: 'The caller lacks the permission (`permission_denied`), or a session request without its CSRF token.',
  404: 'Not found, or not visible to the caller (`not_found`); an unknown host (`tenant_not_found`).',
  413: 'The body is larger than the limit (`payload_too_large`).',
  415: 'A body that is not JSON (`unsupported_media_type`).',
  429: 'Over a rate limit (`throttled`); `Retry-After` says when to retry.',
  503: 'The database is not available (`service_unavailable`); retry shortly.',
};

/** Errors that keep the platform envelope on every route (render-error.ts). */
const PLATFORM_STATUSES = new Set([401, 429, 503]);

function errorResponses(spec: RouteSpec, params: string[]): Record<string, Json> {
  const statuses = [400, 404, 429, 503];
  if (spec.auth === 'required' || spec.permission) statuses.push(401);
  if (spec.permission || UNSAFE.has(spec.method)) statuses.push(403);
  if (spec.method !== 'GET' && spec.method !== 'DELETE') statuses.push(413, 415);
  if (params.length === 0 && spec.scope !== 'site') statuses.splice(statuses.indexOf(404), 1);
  const moduleSchema = `#/components/schemas/${schemaName(spec.module)}`;
  const out: Record<string, Json> = {};
  for (const status of statuses.sort()) {
    const ref = PLATFORM_STATUSES.has(status) ? '#/components/schemas/PlatformError' : moduleSchema;
    out[String(status)] = { $ref: `#/components/responses/E${status}_${ref.split('/').pop()}` };
  }
  return out;
}

function successResponse(spec: RouteSpec): Record<string, Json> {
  const status = defaultStatus(spec);
  if (status === 204) return { '204': { description: 'Done; no body.' } };
  if (status >= 300 && status < 400) return { [String(status)]: { description: 'A redirect (`Location`).' } };
  const schema = spec.responseSchema ?? {};
  return { [String(status)]: { description: spec.summary, content: { 'application/json': { schema } } } };
}

function operation(spec: RouteSpec, served: string, params: string[]): Json {
  const op: Json = {
    operationId: `${spec.method.toLowerCase()}${served.replace(/\{([^}]+)\}/g, 'By_$1').replace(/[^A-Za-z0-9_]+/g, '_')}`,
    summary: spec.summary,
    tags: [spec.module],
    description: [
      spec.scope === 'site'
        ? "Site route: call it on one of the site's domains (`tenant_required` on a platform host)."
        : spec.scope === 'console'
          ? 'Console route: any host; also served under `/api/cloud/`.'
          : 'Any host.',
      spec.permission ? `Permission: \`${spec.permission}\`.` : null,
      spec.rateLimit === 'auth' ? 'Counts against the sign-in rate limit (failed attempts).' : null,
    ]
      .filter(Boolean)
      .join(' '),
    security: security(spec),
    responses: { ...successResponse(spec), ...errorResponses(spec, params) },
  };
  if (spec.permission) op['x-permission'] = spec.permission;
  if (params.length) {
    op.parameters = params.map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string', maxLength: 500 },
      ...(name === 'path' ? { description: 'The rest of the path (may contain `/`).' } : {}),
    }));
  }
  if (spec.rawBody) {
    op.requestBody = {
      description: 'Read as it arrives (uploads), not buffered.',
      content: {
        'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
        'multipart/form-data': { schema: { type: 'object' } },
      },
    };
  } else if (spec.method === 'POST' || spec.method === 'PUT' || spec.method === 'PATCH') {
    const schema = spec.requestSchema ?? { type: 'object' };
    op.requestBody = { required: Array.isArray(schema.required), content: { 'application/json': { schema } } };
  }
  return op;
}

/** The renderers of the modules that have their own envelope, by module name. */
export type ModuleRenderers = ReadonlyMap<string, RestErrorRenderer | undefined>;

export function buildOpenApi(routes: readonly RouteSpec[], renderers: ModuleRenderers, version = '0.1.0'): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const spec of routes) {
    for (const served of mountedPaths(spec)) {
      const { path, params } = openapiPath(served);
      const item = (paths[path] ??= {});
      item[spec.method.toLowerCase()] = operation(spec, path, params);
    }
  }
  const modules = [...new Set(routes.map((r) => r.module))].sort();
  const schemas: Record<string, Json> = {
    PlatformError: envelopeSchema(
      renderConsoleError,
      'The platform envelope `{detail, code, status_code}`: console routes, and platform errors on every route.',
    ),
  };
  for (const module of modules) {
    const renderer = renderers.get(module);
    schemas[schemaName(module)] = renderer
      ? envelopeSchema((e) => renderRestError(e, renderer), `The error envelope of ${module} routes.`)
      : { $ref: '#/components/schemas/PlatformError' };
  }
  const responses: Record<string, Json> = {};
  for (const name of Object.keys(schemas)) {
    for (const [status, text] of Object.entries(ERROR_TEXT)) {
      responses[`E${status}_${name}`] = {
        description: text,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tenantry REST API',
      version,
      description:
        'Generated from the route table (gateway/rest/route-table.ts). The host selects the tenant: site routes are called on a domain of the site, console routes on any host. The same operations are reachable through GraphQL at /graphql.',
    },
    servers: [{ url: '/' }],
    tags: modules.map((name) => ({ name })),
    paths,
    components: { securitySchemes: SECURITY_SCHEMES, schemas, responses },
  };
}
