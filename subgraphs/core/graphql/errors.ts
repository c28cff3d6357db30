// The one place where errors become GraphQL errors, used by the gateway and by every
// subgraph server: `extensions.code` is the REST `code` of the AppError (DECISIONS §11),
// `extensions.status` its HTTP status. Anything else is an internal error whose message and
// stack stay in the log.
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { errors, isAppError, type AppError } from '../errors.js';
import { isDatabaseUnavailable } from '../db-errors.js';
import { currentScope } from '../request-db.js';
import type { SubgraphContext } from './context.js';

/** Client mistakes detected by GraphQL itself, as the platform's REST codes. */
const GRAPHQL_CLIENT_CODES: Record<string, { code: string; status: number }> = {
  GRAPHQL_PARSE_FAILED: { code: 'parse_error', status: 400 },
  GRAPHQL_VALIDATION_FAILED: { code: 'invalid', status: 400 },
  BAD_USER_INPUT: { code: 'invalid', status: 400 },
  BAD_REQUEST: { code: 'invalid', status: 400 },
  OPERATION_RESOLUTION_FAILURE: { code: 'invalid', status: 400 },
};

/** Apollo clients retry on these exact codes (automatic persisted queries): left untouched. */
const PASS_THROUGH = new Set(['PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED']);

/** The AppError behind an error, through the wrappers of graphql-js and of the gateway. */
export function findAppError(error: unknown): AppError | null {
  let e: unknown = error;
  for (let depth = 0; e && depth < 10; depth++) {
    if (isAppError(e)) return e;
    e = (e as { originalError?: unknown }).originalError;
  }
  return null;
}

/**
 * An error already formatted here by a subgraph served over HTTP: it carries a string code
 * and a numeric status, which nothing else in the chain produces.
 */
function isFormattedPlatformError(f: GraphQLFormattedError): boolean {
  return typeof f.extensions?.code === 'string' && typeof f.extensions?.status === 'number';
}

const UPSTREAM_UNAVAILABLE = new Set<unknown>([502, 503, 504]);

/** The HTTP status of a subgraph's answer that was not GraphQL (RemoteGraphQLDataSource's `extensions.response`). */
function upstreamStatus(formatted: GraphQLFormattedError, error: unknown): unknown {
  const own = (formatted.extensions?.response as { status?: unknown } | undefined)?.status;
  if (own !== undefined) return own;
  let e: unknown = error;
  for (let depth = 0; e && depth < 10; depth++) {
    const status = (e as { extensions?: { response?: { status?: unknown } } }).extensions?.response?.status;
    if (status !== undefined) return status;
    e = (e as { originalError?: unknown }).originalError;
  }
  return undefined;
}

type Classified =
  { kind: 'platform'; code: string; status?: number; message: string; extra?: Record<string, unknown> } | { kind: 'internal' };

function classify(formatted: GraphQLFormattedError, error: unknown): Classified {
  const aborted = currentScope();
  const app =
    findAppError(error) ??
    (aborted?.reason ? aborted.error() : null) ??
    (isDatabaseUnavailable(error) ? errors.unavailable('The database is not available; try again shortly.') : null);
  if (app) {
    const extra: Record<string, unknown> = {};
    if (app.errors) extra.errors = app.errors;
    if (app.details) extra.details = app.details;
    return { kind: 'platform', code: app.code, status: app.status, message: app.message, extra };
  }
  // A subgraph served over HTTP behind a proxy or load balancer that has no healthy backend
  // answers 502/503/504 without a GraphQL body: unavailable, as when it cannot be reached.
  if (UPSTREAM_UNAVAILABLE.has(upstreamStatus(formatted, error))) {
    const e = errors.unavailable('A service this request needs is not available; try again shortly.');
    return { kind: 'platform', code: e.code, status: e.status, message: e.message };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && PASS_THROUGH.has(code)) return { kind: 'platform', code, message: formatted.message };
  if (isFormattedPlatformError(formatted)) {
    const { code: c, status, errors, details } = formatted.extensions as Record<string, unknown>;
    const extra = { ...(errors ? { errors } : {}), ...(details ? { details } : {}) };
    return { kind: 'platform', code: c as string, status: status as number, message: formatted.message, extra };
  }
  const client = typeof code === 'string' ? GRAPHQL_CLIENT_CODES[code] : undefined;
  if (client) return { kind: 'platform', ...client, message: formatted.message };
  return { kind: 'internal' };
}

/**
 * The HTTP status of a GraphQL answer: 503 (or 502) when nothing could be answered because
 * the database or a subgraph is unavailable, else 200 as GraphQL over HTTP has it.
 */
export function graphqlHttpStatus(data: unknown, formattedErrors: readonly GraphQLFormattedError[] | undefined): number | undefined {
  if (!formattedErrors?.length) return undefined;
  const empty = data == null || (typeof data === 'object' && Object.values(data as object).every((v) => v == null));
  if (!empty) return undefined;
  const codes = new Set(formattedErrors.map((e) => e.extensions?.code));
  if (codes.size === 1 && codes.has('service_unavailable')) return 503;
  if (codes.size === 1 && codes.has('subgraph_unavailable')) return 502;
  return undefined;
}

/** Apollo Server plugin: applies graphqlHttpStatus to single results. */
export function unavailableStatus(): ApolloServerPlugin<SubgraphContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          const { data, errors } = response.body.singleResult;
          const status = graphqlHttpStatus(data, errors);
          if (status) response.http.status = status;
        },
      };
    },
  };
}

/** ApolloServer `formatError`, for the gateway and for subgraph servers alike. */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const c = classify(formatted, error);
  const base = { locations: formatted.locations, path: formatted.path };
  if (c.kind === 'internal') {
    return { ...base, message: 'Internal server error.', extensions: { code: 'internal_error', status: 500 } };
  }
  const status = c.status === undefined ? {} : { status: c.status };
  return { ...base, message: c.message, extensions: { code: c.code, ...status, ...c.extra } };
}

/** Logs the errors that formatGraphqlError hides from the client, with the request id. */
export function logInternalErrors(component: string, errors: readonly GraphQLError[], context: SubgraphContext): void {
  for (const error of errors) {
    if (classify({ message: error.message, extensions: error.extensions }, error).kind !== 'internal') continue;
    let cause: unknown = error;
    while ((cause as { originalError?: unknown }).originalError) cause = (cause as { originalError: unknown }).originalError;
    const err = cause as Error;
    context.ctx.log.error({ component, err: { message: err.message, stack: err.stack }, path: error.path }, 'graphql internal error');
  }
}

/** The same, as an Apollo Server plugin. */
export function internalErrorLogger(component: string): ApolloServerPlugin<SubgraphContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          logInternalErrors(component, errors, contextValue);
        },
      };
    },
  };
}
