// Filter values checked against the field's type before they become bound parameters: a
// value PostgreSQL would refuse (an invalid date, a NUL byte, a number out of range, JSON
// nested beyond its stack) answers 400 naming the parameter, never a database error.
import type { FieldModel } from '../model/table-model.js';
import { dataErrors } from '../data-errors.js';
import { isValidDate } from '../model/field-parse.js';

export class FilterValueError extends Error {}

const fail = (message: string): never => {
  throw new FilterValueError(message);
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^[+-]?\d{1,19}$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/i;
const INT64_MAX = 9223372036854775807n;
export const MAX_JSON_DEPTH = 32;

/** Text without NUL (PostgreSQL text cannot hold it). Numbers and booleans are taken as text. */
export function textValue(raw: unknown): string {
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  if (typeof raw !== 'string') return fail('Expected a string.');
  if (raw.includes('\u0000')) fail('Text cannot contain a NUL character.');
  return raw;
}

function integerValue(raw: unknown): number | string {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : fail('Expected an integer.');
  const s = textValue(raw).trim();
  if (!INTEGER.test(s)) return fail(`"${s.slice(0, 40)}" is not an integer.`);
  const n = BigInt(s);
  if (n > INT64_MAX || n < -INT64_MAX - 1n) fail('Integer out of range.');
  return n.toString();
}

function numberValue(raw: unknown): number {
  const n = typeof raw === 'number' ? raw : NUMBER.test(textValue(raw).trim()) ? Number(textValue(raw).trim()) : NaN;
  return Number.isFinite(n) ? n : fail('Expected a finite number.');
}

/** A value of the field's own type, ready to bind with a cast to its column type. */
export function scalarValue(field: FieldModel, raw: unknown): unknown {
  switch (field.type) {
    case 'integer':
      return integerValue(raw);
    case 'number':
      return numberValue(raw);
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      const s = textValue(raw).toLowerCase();
      return s === 'true' ? true : s === 'false' ? false : fail('Expected true or false.');
    }
    case 'date': {
      const s = textValue(raw).trim();
      return isValidDate(s) ? s : fail('Expected a date YYYY-MM-DD.');
    }
    case 'time': {
      const s = textValue(raw).trim();
      return TIME.test(s) ? s : fail('Expected a time HH:MM[:SS].');
    }
    case 'datetime': {
      const s = textValue(raw).trim();
      const t = DATETIME.test(s) && isValidDate(s.slice(0, 10)) ? Date.parse(s.replace(' ', 'T')) : NaN;
      return Number.isFinite(t) ? new Date(t).toISOString() : fail('Expected an ISO 8601 date-time.');
    }
    case 'string': {
      const s = textValue(raw);
      if (field.format === 'uuid' || field.generated === 'uuid') return UUID.test(s) ? s.toLowerCase() : fail('Expected a UUID.');
      return s;
    }
    default:
      return fail('Expected a scalar value.');
  }
}

/** A comma list (query strings) or a JSON array (the `filter` object). */
export function listOf(raw: unknown): unknown[] {
  if (Array.isArray(raw)) return raw;
  if (typeof raw === 'string') return raw === '' ? [] : raw.split(',');
  return [raw];
}

export function flagValue(raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  const s = typeof raw === 'string' ? raw.toLowerCase() : '';
  return s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : fail('Expected true or false.');
}

function depthOf(v: unknown, depth = 0): number {
  if (depth > MAX_JSON_DEPTH) return depth;
  if (v === null || typeof v !== 'object') return depth;
  let max = depth + 1;
  for (const x of Object.values(v as object)) max = Math.max(max, depthOf(x, depth + 1));
  return max;
}

/**
 * A JSON value: query strings are parsed when they are valid JSON, else taken as a string;
 * NUL and nesting beyond MAX_JSON_DEPTH refused (jsonb refuses `\u0000`; deep values exhaust its stack).
 */
export function jsonValue(raw: unknown): string {
  let v = raw;
  if (typeof raw === 'string') {
    try {
      v = JSON.parse(raw);
    } catch {
      v = raw;
    }
  }
  if (v === undefined) return fail('Expected a JSON value.');
  if (depthOf(v) > MAX_JSON_DEPTH) fail(`JSON nested deeper than ${MAX_JSON_DEPTH} levels.`);
  if (typeof v === 'number' && !Number.isFinite(v)) fail('Expected a finite number.');
  const text = JSON.stringify(v);
  if (text.includes('\\u0000')) fail('JSON cannot contain a NUL character.');
  return text;
}

/** Runs a value parser, turning its failure into a 400 naming the parameter. */
export function checked<T>(key: string, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof FilterValueError) throw dataErrors.invalidParam(key, e.message);
    throw e;
  }
}
