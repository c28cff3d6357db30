// Input every route refuses before a handler sees it (issue 10 item 5, docs/security.md):
//   - JSON nested deeper than JSON_MAX_DEPTH: 400, found by a linear scan before parsing, so
//     neither the parser nor any later recursive walk can exhaust the stack;
//   - numbers outside the range of a double (`1e400` parses to Infinity): 400 naming the field;
//   - NUL characters (PostgreSQL stores none, in text or jsonb) in a body string or key, or in
//     a query parameter: 400 naming the field; in a path segment: 404.
// JSON keeps Fastify's own parser (secure-json-parse: `__proto__` and `constructor.prototype`
// keys refused), wrapped by these checks.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../subgraphs/core/errors.js';

const NUL = '\u0000';
const OPEN_OBJECT = 123; // {
const OPEN_ARRAY = 91; // [
const CLOSE_OBJECT = 125; // }
const CLOSE_ARRAY = 93; // ]
const QUOTE = 34; // "
const BACKSLASH = 92; // \

/** Whether the JSON text nests arrays/objects deeper than `max` (strings skipped, linear time). */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

export interface BadValue {
  field: string;
  message: string;
}

const NUL_MESSAGE = 'NUL characters (\\u0000) are not allowed.';
const RANGE_MESSAGE = 'Numbers must be finite and within the range of a double (about ±1.8e308).';

const visible = (key: string) => key.replaceAll(NUL, '\\u0000');
const child = (path: string, key: string) => (path ? `${path}.${visible(key)}` : visible(key) || '(empty key)');

/**
 * The first string or key holding a NUL, or number out of range, in a parsed JSON value, with
 * its path (`resources[0].name`); null when there is none. Depth is bounded by the caller.
 */
export function findBadValue(value: unknown, path = ''): BadValue | null {
  if (typeof value === 'string') return value.includes(NUL) ? { field: path || 'body', message: NUL_MESSAGE } : null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : { field: path || 'body', message: RANGE_MESSAGE };
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = findBadValue(value[i], `${path}[${i}]`);
      if (bad) return bad;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (key.includes(NUL)) return { field: child(path, key), message: NUL_MESSAGE };
    const bad = findBadValue((value as Record<string, unknown>)[key], child(path, key));
    if (bad) return bad;
  }
  return null;
}

/** Replaces the JSON body parser with one that applies the depth, range and NUL rules. */
export function registerJsonGuards(app: FastifyInstance, maxDepth: number): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonDepthExceeds(text, maxDepth)) {
      done(errors.invalid(`JSON nested deeper than ${maxDepth} levels is not accepted.`), undefined);
      return;
    }
    parse(request, text, (err, value) => {
      if (err) return done(err, undefined);
      const bad = findBadValue(value);
      if (bad) return done(errors.field(bad.field, bad.message), undefined);
      done(null, value);
    });
  });
}

/**
 * NUL characters in the decoded path parameters (404: no resource has such a name) and query
 * parameters (400 naming the parameter). Called first thing for every request.
 */
export function checkUrlInput(request: FastifyRequest): void {
  // Fast path: a NUL arrives in a URL only percent-encoded (or raw, which Node's parser refuses).
  if (!request.url.includes('%00')) return;
  const params = request.params as Record<string, unknown> | undefined;
  if (params) {
    for (const v of Object.values(params)) if (typeof v === 'string' && v.includes(NUL)) throw errors.notFound();
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (query) {
    for (const [key, v] of Object.entries(query)) {
      const values = Array.isArray(v) ? v : [v];
      if (key.includes(NUL) || values.some((x) => typeof x === 'string' && x.includes(NUL))) {
        throw errors.field(visible(key) || '(empty key)', NUL_MESSAGE);
      }
    }
  }
  // A NUL in a part of the path the router matched literally cannot match a route: the
  // not-found handler answers. Anywhere else (a wildcard), refuse it here.
  if (request.url.split('?')[0].includes('%00')) throw errors.notFound();
}
