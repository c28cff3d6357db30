// The one database-error mapper: PostgreSQL errors (from pg directly, or wrapped by Prisma's
// driver adapter) classified by SQLSTATE, and turned into the error catalogue. Services never
// match an error's message text; repositories pass what they know (which constraint means what).
import { AppError, errors } from './errors.js';

export type DbErrorKind =
  | 'unique'
  | 'foreign_key'
  | 'restrict'
  | 'not_null'
  | 'check'
  | 'invalid_value'
  | 'too_complex'
  | 'serialization'
  | 'unavailable'
  | 'timeout';

export interface DbError {
  kind: DbErrorKind;
  /** SQLSTATE. */
  code: string;
  constraint?: string;
  column?: string;
  table?: string;
  detail?: string;
}

const KINDS: Record<string, DbErrorKind> = {
  '23505': 'unique',
  '23503': 'foreign_key',
  '23001': 'restrict',
  '23502': 'not_null',
  '23514': 'check',
  '22P02': 'invalid_value',
  '22003': 'invalid_value',
  '22007': 'invalid_value',
  '22008': 'invalid_value',
  '2201B': 'invalid_value',
  '22001': 'invalid_value',
  '22021': 'invalid_value',
  '22025': 'invalid_value',
  '22P05': 'invalid_value',
  '2202E': 'invalid_value',
  '54000': 'too_complex',
  '54001': 'too_complex',
  '40001': 'serialization',
  '40P01': 'serialization',
  '57P01': 'unavailable',
  '57P02': 'unavailable',
  '57P03': 'unavailable',
  '53300': 'unavailable',
  '08000': 'unavailable',
  '08001': 'unavailable',
  '08003': 'unavailable',
  '08004': 'unavailable',
  '08006': 'unavailable',
  '57014': 'timeout',
};

/** Prisma (P2002…) codes that carry no SQLSTATE of their own. */
const PRISMA_KINDS: Record<string, DbErrorKind> = {
  P2002: 'unique',
  P2003: 'foreign_key',
  P2011: 'not_null',
  P1001: 'unavailable',
  P1002: 'unavailable',
  P1017: 'unavailable',
};

/** Socket errors of the connection to the server (pg, net), and Prisma's driver-adapter kinds for them. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);
const ADAPTER_UNAVAILABLE = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/**
 * pg reports a lost or impossible connection without a code: these messages are its own,
 * fixed texts (pg-pool's connection time-out, pg's "Connection terminated…", a client that
 * already failed). The only place the platform reads an error's text.
 */
const PG_CONNECTION_MESSAGE =
  /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;

function isConnectionFailure(err: RawError & { message?: unknown }): boolean {
  if (typeof err.code === 'string' && SOCKET_CODES.has(err.code)) return true;
  return typeof err.message === 'string' && PG_CONNECTION_MESSAGE.test(err.message);
}

interface RawError {
  code?: string;
  constraint?: string;
  column?: string;
  table?: string;
  detail?: string;
  cause?: RawError & { originalCode?: string; kind?: string; constraint?: { index?: string } | string };
  meta?: { target?: unknown; driverAdapterError?: { cause?: { originalCode?: string; kind?: string; constraint?: { index?: string } } } };
}

/** The database error behind `e` (pg, or Prisma's wrappers around it), or null. */
export function classifyDbError(e: unknown): DbError | null {
  const err = e as RawError | null;
  if (!err || typeof err !== 'object') return null;
  if (typeof err.code === 'string' && KINDS[err.code]) {
    return { kind: KINDS[err.code], code: err.code, constraint: err.constraint, column: err.column, table: err.table, detail: err.detail };
  }
  const adapter = err.meta?.driverAdapterError?.cause ?? err.cause;
  const original = adapter?.originalCode;
  if (original && KINDS[original]) {
    const c = adapter?.constraint;
    const constraint = typeof c === 'string' ? c : c?.index;
    return { kind: KINDS[original], code: original, constraint };
  }
  if (typeof err.code === 'string' && PRISMA_KINDS[err.code]) return { kind: PRISMA_KINDS[err.code], code: err.code };
  if (adapter?.kind === 'UniqueConstraintViolation') return { kind: 'unique', code: '23505' };
  if (adapter?.kind && ADAPTER_UNAVAILABLE.has(adapter.kind)) return { kind: 'unavailable', code: '08006' };
  // The connection itself failed (the error, or the error it wraps).
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isConnectionFailure(e as RawError)) return { kind: 'unavailable', code: '08006' };
  }
  return null;
}

export const isUniqueViolation = (e: unknown, constraint?: string): boolean => {
  const d = classifyDbError(e);
  return d?.kind === 'unique' && (constraint === undefined || d.constraint === constraint);
};

/** What a repository knows: the error for a given constraint (e.g. a unique name). */
export type ConstraintErrors = Record<string, (db: DbError) => AppError>;

/**
 * A database error as a platform error: a constraint the caller named → its error; else a
 * generic one by kind (unique → 409, foreign key → 400, invalid value → 400, unavailable →
 * 503). Anything that is not a database error, or not a client's fault, is returned as is.
 */
export function mapDbError(e: unknown, byConstraint: ConstraintErrors = {}): unknown {
  if (e instanceof AppError) return e;
  const db = classifyDbError(e);
  if (!db) return e;
  const named = db.constraint ? byConstraint[db.constraint] : undefined;
  if (named) return named(db);
  switch (db.kind) {
    case 'unique':
      return errors.conflict('A resource with these values already exists.');
    case 'foreign_key':
    case 'restrict':
      return errors.invalid('The request refers to a resource that does not exist, or one that others still refer to.');
    case 'not_null':
      return db.column ? errors.field(db.column, 'This field is required.') : errors.invalid('A required value is missing.');
    case 'check':
    case 'invalid_value':
      return errors.invalid('A value is not valid for its field.');
    case 'too_complex':
      return errors.invalid('The request is too large or too deeply nested.');
    case 'unavailable':
      return errors.unavailable('The database is not available; try again shortly.');
    default:
      return e;
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'P1001', 'P1017']);
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused/i;

/**
 * True when `e` (or an error it wraps) says the database cannot be reached: a connection
 * refused, reset or timed out, or an `unavailable` SQLSTATE. Callers answer 503
 * `service_unavailable` for these instead of an internal error.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  let cur: unknown = e;
  for (let depth = 0; cur && typeof cur === 'object' && depth < 10; depth++) {
    const err = cur as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      originalError?: unknown;
      errors?: unknown;
      thrownValue?: unknown;
    };
    if (typeof err.code === 'string' && CONNECTION_CODES.has(err.code)) return true;
    if (classifyDbError(err)?.kind === 'unavailable') return true;
    if (typeof err.message === 'string' && CONNECTION_MESSAGES.test(err.message)) return true;
    // AggregateError (a connection tried on several addresses).
    if (Array.isArray(err.errors) && err.errors.some((x) => isDatabaseUnavailable(x))) return true;
    // graphql-js wraps a thrown non-Error (pg rejects with a plain object) as `thrownValue`.
    cur = err.originalError ?? err.cause ?? err.thrownValue;
  }
  return false;
}
