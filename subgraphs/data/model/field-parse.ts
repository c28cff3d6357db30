// One field of a Frictionless Table Schema → FieldModel, with every rule of
// docs/data-service.md "Schema rules". Errors are collected, not thrown, so one answer names
// every problem of a package.
import type { FieldErrors } from '../../core/errors.js';
import { linearPattern, patternProblem } from '../../core/safe-regexp.js';
import { FIELD_TYPES, SEARCH_VECTOR, type FieldConstraints, type FieldModel, type FieldType, type StringFormat } from './table-model.js';

export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FORMATS: readonly StringFormat[] = ['uuid', 'email', 'uri'];
const FIELD_KEYS = new Set(['name', 'type', 'format', 'description', 'default', 'constraints', 'title', 'example', 'rdfType']);
const CONSTRAINT_KEYS = new Set(['required', 'unique', 'minLength', 'maxLength', 'minimum', 'maximum', 'pattern', 'enum']);
const MAX_ENUM = 1000;

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_RE = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,6})?$/;
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([Zz]|[+-]\d{2}:?\d{2})$/;

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** A real calendar date `YYYY-MM-DD` from year 1 (the one date check of the data service). */
export function isValidDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0–99 to 1900–1999.
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo - 1, d);
  return y >= 1 && dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}
export const isValidTime = (s: string) => TIME_RE.test(s);
export const isValidDatetime = (s: string) =>
  DATETIME_RE.test(s) && isValidDate(s.slice(0, 10)) && !Number.isNaN(Date.parse(s.replace(' ', 'T')));

/** Why `value` is not a value of `field` (type and format only); null when it is. */
export function typeProblem(field: Pick<FieldModel, 'type' | 'format'>, value: unknown): string | null {
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') return 'Must be a string.';
      if (field.format === 'uuid' && !UUID_RE.test(value)) return 'Must be a valid uuid.';
      return null;
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? null : 'Must be an integer.';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'Must be a number.';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'Must be a boolean.';
    case 'date':
      return typeof value === 'string' && isValidDate(value) ? null : 'Must be a date (YYYY-MM-DD).';
    case 'time':
      return typeof value === 'string' && isValidTime(value) ? null : 'Must be a time (HH:MM:SS).';
    case 'datetime':
      return typeof value === 'string' && isValidDatetime(value) ? null : 'Must be a datetime (ISO 8601 with a time zone).';
    case 'object':
      return isPlainObject(value) ? null : 'Must be an object.';
    case 'array':
      return Array.isArray(value) ? null : 'Must be an array.';
    default:
      return null;
  }
}

/** Why `value` breaks `c` (length, range, pattern, enum); null when it does not. */
export function constraintProblem(c: FieldConstraints, value: unknown): string | null {
  if (typeof value === 'string') {
    const len = [...value].length;
    if (c.minLength !== undefined && len < c.minLength) return `Use at least ${c.minLength} characters.`;
    if (c.maxLength !== undefined && len > c.maxLength) return `Use at most ${c.maxLength} characters.`;
    if (c.pattern !== undefined && !linearPattern(c.pattern).test(value)) return `Must match the pattern ${c.pattern}.`;
  }
  if (typeof value === 'number') {
    if (c.minimum !== undefined && value < c.minimum) return `Must be at least ${c.minimum}.`;
    if (c.maximum !== undefined && value > c.maximum) return `Must be at most ${c.maximum}.`;
  }
  if (c.enum && !c.enum.includes(value as never)) return `Must be one of: ${c.enum.join(', ')}.`;
  return null;
}

const nonNegInt = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function parseConstraints(raw: unknown, type: FieldType, at: string, errs: FieldErrors): FieldConstraints {
  const c: FieldConstraints = {};
  if (raw === undefined) return c;
  const add = (k: string, m: string) => (errs[`${at}.constraints.${k}`] ??= []).push(m);
  if (!isPlainObject(raw)) {
    (errs[`${at}.constraints`] ??= []).push('Must be an object.');
    return c;
  }
  for (const k of Object.keys(raw)) if (!CONSTRAINT_KEYS.has(k)) add(k, `Unknown constraint "${k}".`);
  for (const k of ['required', 'unique'] as const) {
    if (raw[k] === undefined) continue;
    if (typeof raw[k] !== 'boolean') add(k, 'Must be true or false.');
    else c[k] = raw[k] as boolean;
  }
  for (const k of ['minLength', 'maxLength'] as const) {
    if (raw[k] === undefined) continue;
    if (type !== 'string') add(k, 'Applies to string fields only.');
    else if (!nonNegInt(raw[k])) add(k, 'Must be a whole number, 0 or more.');
    else c[k] = raw[k] as number;
  }
  for (const k of ['minimum', 'maximum'] as const) {
    if (raw[k] === undefined) continue;
    if (type !== 'integer' && type !== 'number') add(k, 'Applies to integer and number fields only.');
    else if (typeof raw[k] !== 'number' || !Number.isFinite(raw[k]) || (type === 'integer' && !Number.isSafeInteger(raw[k])))
      add(k, `Must be ${type === 'integer' ? 'an integer' : 'a number'}.`);
    else c[k] = raw[k] as number;
  }
  if (raw.pattern !== undefined) {
    if (type !== 'string') add('pattern', 'Applies to string fields only.');
    else {
      // Compiled with RE2 (linear time): what it cannot compile is refused here, at definition.
      const problem = patternProblem(raw.pattern);
      if (problem) add('pattern', problem);
      else c.pattern = raw.pattern as string;
    }
  }
  if (raw.enum !== undefined) {
    if (type !== 'string' && type !== 'integer' && type !== 'number') add('enum', 'Applies to string, integer and number fields only.');
    else if (!Array.isArray(raw.enum) || raw.enum.length === 0 || raw.enum.length > MAX_ENUM)
      add('enum', `Must be a list of 1 to ${MAX_ENUM} values.`);
    else {
      const bad = raw.enum.find((v) => typeProblem({ type }, v) !== null);
      if (bad !== undefined) add('enum', `Every value must be of type ${type}.`);
      else c.enum = [...new Set(raw.enum)];
    }
  }
  if (c.minLength !== undefined && c.maxLength !== undefined && c.minLength > c.maxLength) add('minLength', 'Must not exceed maxLength.');
  if (c.minimum !== undefined && c.maximum !== undefined && c.minimum > c.maximum) add('minimum', 'Must not exceed maximum.');
  return c;
}

function parseDefault(field: FieldModel, raw: unknown, at: string, errs: FieldErrors): void {
  if (raw === undefined) return;
  const add = (m: string): void => void (errs[`${at}.default`] ??= []).push(m);
  if (raw === null) return add('Omit the default instead of null.');
  if (raw === 'now' && (field.type === 'datetime' || field.type === 'date')) {
    field.default = 'now';
    return;
  }
  const problem = typeProblem(field, raw) ?? constraintProblem(field.constraints, raw);
  if (problem) return add(problem);
  if (field.format === 'email' || field.format === 'uri') {
    // ajv checks these formats on writes; a default that fails them would fail every insert.
    if (field.format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(raw as string)) return add('Must be a valid email.');
  }
  field.default = raw;
}

/**
 * A field, or null when it has errors (recorded in `errs` under `at`, e.g.
 * `resources[0].schema.fields[2]`). `seen` holds lower-cased names already used.
 */
export function parseField(raw: unknown, at: string, seen: Set<string>, errs: FieldErrors): FieldModel | null {
  const before = Object.keys(errs).length;
  const add = (k: string, m: string) => (errs[k ? `${at}.${k}` : at] ??= []).push(m);
  if (!isPlainObject(raw)) {
    add('', 'Must be an object with at least a name.');
    return null;
  }
  for (const k of Object.keys(raw)) if (!FIELD_KEYS.has(k)) add(k, `Unknown key "${k}".`);
  const name = raw.name;
  if (typeof name !== 'string' || !FIELD_NAME.test(name) || Buffer.byteLength(name) > 63 || name.includes('__')) {
    add('name', 'Use letters, digits and single underscores, starting with a letter or _, at most 63 bytes.');
  } else if (name === SEARCH_VECTOR) {
    add('name', `"${SEARCH_VECTOR}" is reserved for full-text search.`);
  } else if (seen.has(name.toLowerCase())) {
    add('name', `Duplicate field "${name}".`);
  } else seen.add(name.toLowerCase());
  const type = (raw.type ?? 'string') as FieldType;
  if (!FIELD_TYPES.includes(type)) add('type', `Must be one of: ${FIELD_TYPES.join(', ')}.`);
  let format: StringFormat | undefined;
  if (raw.format !== undefined && raw.format !== 'default') {
    if (type !== 'string') add('format', 'Applies to string fields only.');
    else if (!FORMATS.includes(raw.format as StringFormat)) add('format', `Must be one of: ${FORMATS.join(', ')}.`);
    else format = raw.format as StringFormat;
  }
  if (raw.description !== undefined && typeof raw.description !== 'string') add('description', 'Must be a string.');
  if (Object.keys(errs).length > before) return null;
  const constraints = parseConstraints(raw.constraints, type, at, errs);
  const field: FieldModel = { name: name as string, type, constraints, nullable: !constraints.required };
  if (format) field.format = format;
  if (typeof raw.description === 'string' && raw.description) field.description = raw.description;
  if (field.name === 'is_deleted') {
    if (type !== 'boolean') add('type', '"is_deleted" turns on soft delete and must be boolean.');
    field.nullable = false;
  }
  if ((field.name === 'created_at' || field.name === 'updated_at') && type === 'datetime') field.auto = field.name;
  parseDefault(field, raw.default, at, errs);
  return Object.keys(errs).length > before ? null : field;
}

/** PostgreSQL column type of a field (flat_table). */
export function columnTypeOf(field: Pick<FieldModel, 'type' | 'format' | 'generated'>): string {
  switch (field.type) {
    case 'string':
      return field.format === 'uuid' || field.generated === 'uuid' ? 'uuid' : 'text';
    case 'integer':
      return 'bigint';
    case 'number':
      return 'double precision';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    case 'datetime':
      return 'timestamptz';
    default:
      return 'jsonb';
  }
}
