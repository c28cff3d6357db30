// Regular expressions written by tenants (datatable `pattern` constraints, secret-type JSON
// Schemas) run on RE2's linear-time engine (re2js), never on JavaScript's backtracking one:
// a pattern such as `^(a+)+$` would otherwise hold the shared event loop for seconds per
// request. Patterns RE2 cannot compile (lookarounds, backreferences, oversized repeats) are
// refused where they are defined.
import { RE2JS } from 're2js';

/** What ajv and the data service need of a compiled pattern. */
export interface RegExpLike {
  test(s: string): boolean;
}

/** Longest pattern a tenant may define. */
export const MAX_PATTERN_LENGTH = 1000;

/** Compiles a JavaScript-syntax pattern with RE2; throws a message naming what is unsupported. */
export function compileLinear(pattern: string): RegExpLike {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new Error(`Use at most ${MAX_PATTERN_LENGTH} characters.`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : 'invalid';
    throw new Error(`Not a supported regular expression (${why}); lookarounds and backreferences are not allowed.`);
  }
  return { test: (s: string) => re.test(s) };
}

/** Why `pattern` cannot be used; null when it compiles. */
export function patternProblem(pattern: unknown): string | null {
  if (typeof pattern !== 'string') return 'Must be a regular expression.';
  try {
    compileLinear(pattern);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

const cache = new Map<string, RegExpLike>();
const CACHE_MAX = 500;

/** A compiled pattern from a small cache (validated patterns are reused across requests). */
export function linearPattern(pattern: string): RegExpLike {
  let re = cache.get(pattern);
  if (!re) {
    re = compileLinear(pattern);
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, re);
  }
  return re;
}

/** ajv's `code.regExp` engine: `pattern`, `patternProperties` and `propertyNames` compile with RE2. */
export const linearRegExpEngine: ((pattern: string, u: string) => RegExpLike) & { code: string } = Object.assign(
  (pattern: string) => compileLinear(pattern),
  {
    code: 'linearRegExpEngine',
  },
);
