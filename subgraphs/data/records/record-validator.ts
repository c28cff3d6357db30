// Validation of record bodies (docs/data-service.md "Record JSON"): a JSON Schema derived from
// the table's model, compiled by ajv once per (table id, version, mode) and cached per
// platform, bounded, so a hot write path never recompiles. The database enforces the same
// constraints again (NOT NULL, CHECK, UNIQUE); checking here first gives every field's
// messages at once instead of the first failing constraint.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import type { FieldErrors } from '../../core/errors.js';
import { linearRegExpEngine } from '../../core/safe-regexp.js';
import type { Platform } from '../../core/platform.js';
import { dataErrors } from '../data-errors.js';
import { isValidDate } from '../model/field-parse.js';
import type { DataTable, FieldModel, TableModel } from '../model/table-model.js';

const addFormats = (formatsModule as unknown as { default: typeof formatsModule.default }).default;

export type ValidationMode = 'create' | 'patch';

const TIME = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(\.\d{1,6})?$/;
// An offset or Z is required: a datetime without one would depend on the server's zone.
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?([Zz]|[+-]\d{2}(:?\d{2})?)$/;

const validDateTime = (s: string): boolean => DATETIME.test(s) && isValidDate(s.slice(0, 10)) && !Number.isNaN(Date.parse(s));

function makeAjv(): Ajv {
  // `pattern` constraints are tenants' regular expressions: RE2 (linear time), never backtracking.
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    allowUnionTypes: true,
    coerceTypes: false,
    useDefaults: false,
    code: { regExp: linearRegExpEngine },
  });
  addFormats(ajv, ['email', 'uuid', 'uri']);
  ajv.addFormat('date', { type: 'string', validate: isValidDate });
  ajv.addFormat('time', { type: 'string', validate: (s: string) => TIME.test(s) });
  ajv.addFormat('date-time', { type: 'string', validate: validDateTime });
  return ajv;
}

// bigint bounds: a larger JSON number could not be stored (22003 otherwise).
const INT64_MAX = 2 ** 63; // 2^63 - 1 is not a double: this is the nearest one

function fieldSchema(f: FieldModel, nullable: boolean): Record<string, unknown> {
  const c = f.constraints;
  const s: Record<string, unknown> = {};
  const base: Record<string, string> = {
    string: 'string',
    integer: 'integer',
    number: 'number',
    boolean: 'boolean',
    date: 'string',
    time: 'string',
    datetime: 'string',
    object: 'object',
    array: 'array',
  };
  if (f.type !== 'any') s.type = nullable ? [base[f.type], 'null'] : base[f.type];
  if (f.type === 'date') s.format = 'date';
  if (f.type === 'time') s.format = 'time';
  if (f.type === 'datetime') s.format = 'date-time';
  if (f.type === 'string') {
    if (f.format) s.format = f.format;
    if (c.minLength !== undefined) s.minLength = c.minLength;
    if (c.maxLength !== undefined) s.maxLength = c.maxLength;
    if (c.pattern !== undefined) s.pattern = c.pattern;
  }
  if (f.type === 'integer' || f.type === 'number') {
    s.minimum = c.minimum ?? (f.type === 'integer' ? -INT64_MAX : undefined);
    s.maximum = c.maximum ?? (f.type === 'integer' ? INT64_MAX : undefined);
    if (s.minimum === undefined) delete s.minimum;
    if (s.maximum === undefined) delete s.maximum;
  }
  if (c.enum !== undefined) s.enum = nullable ? [...c.enum, null] : c.enum;
  return s;
}

/** Fields a create body must carry: not nullable, and nothing else supplies a value. */
export function requiredOnCreate(model: TableModel): string[] {
  return model.fields
    .filter((f) => !f.nullable && f.default === undefined && !f.generated && !f.auto && f.name !== 'is_deleted')
    .map((f) => f.name);
}

/** The JSON Schema of a record body; exported for tests and documentation. */
export function recordJsonSchema(model: TableModel, mode: ValidationMode): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const f of model.fields) properties[f.name] = f.auto ? {} : fieldSchema(f, f.nullable);
  const schema: Record<string, unknown> = { type: 'object', properties, additionalProperties: false };
  if (mode === 'create') schema.required = requiredOnCreate(model);
  return schema;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  date: 'a date (YYYY-MM-DD)',
  time: 'a time (HH:MM:SS)',
  datetime: 'a datetime (ISO 8601 with an offset or Z)',
  object: 'a JSON object',
  array: 'a JSON array',
  any: 'any JSON',
};

function keyOf(e: ErrorObject): string {
  if (e.keyword === 'required') return (e.params as { missingProperty: string }).missingProperty;
  if (e.keyword === 'additionalProperties') return (e.params as { additionalProperty: string }).additionalProperty;
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path.join('.') || 'non_field_errors';
}

function messageOf(e: ErrorObject, model: TableModel): string {
  const p = e.params as Record<string, unknown>;
  const field = model.fields.find((f) => f.name === e.instancePath.slice(1));
  switch (e.keyword) {
    case 'required':
      return 'This field is required.';
    case 'additionalProperties':
      return `Unknown field "${String(p.additionalProperty)}".`;
    case 'type':
      if (e.instancePath === '') return 'A record must be a JSON object.';
      return String(p.type).endsWith('null') || !field?.nullable
        ? `Must be ${TYPE_WORDS[field?.type ?? ''] ?? String(p.type)}${field?.nullable ? ' or null' : ''}.`
        : 'Invalid type.';
    case 'format':
      return field?.type !== 'string'
        ? `Must be ${TYPE_WORDS[field?.type ?? 'string']}.`
        : p.format === 'email'
          ? 'Enter a valid e-mail address.'
          : `Must be a valid ${String(p.format)}.`;
    case 'enum':
      return `Must be one of: ${(p.allowedValues as unknown[])
        .filter((v) => v !== null)
        .map((v) => JSON.stringify(v))
        .join(', ')}.`;
    case 'minLength':
      return `Use at least ${String(p.limit)} characters.`;
    case 'maxLength':
      return `Use at most ${String(p.limit)} characters.`;
    case 'minimum':
      return `Must be at least ${String(p.limit)}.`;
    case 'maximum':
      return `Must be at most ${String(p.limit)}.`;
    case 'pattern':
      return `Must match the pattern ${String(p.pattern)}.`;
    default:
      return e.message ? e.message[0].toUpperCase() + e.message.slice(1) + '.' : 'Invalid value.';
  }
}

/** ajv errors as `{field: [messages]}`, each key prefixed (`[3].title` in array bodies). */
export function recordErrors(list: ErrorObject[], model: TableModel, prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  for (const e of list) {
    const key = prefix + keyOf(e);
    const msg = messageOf(e, model);
    out[key] ??= [];
    if (!out[key].includes(msg)) out[key].push(msg);
  }
  return out;
}

function hasNul(v: unknown, depth: number): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (depth > 64 || v === null || typeof v !== 'object') return false;
  for (const [k, x] of Object.entries(v)) if (k.includes('\u0000') || hasNul(x, depth + 1)) return true;
  return false;
}

interface Cache {
  ajv: Ajv;
  fns: Map<string, ValidateFunction>;
}

const MAX_CACHED = 1000;
const caches = new WeakMap<Platform, Cache>();

/**
 * The compiled validator of a table version. Per platform (test apps in one process do not
 * share), least recently used evicted beyond MAX_CACHED: a bounded cost whatever the number
 * of tables. Old versions simply age out.
 */
export function validatorFor(
  platform: Platform,
  table: Pick<DataTable, 'id' | 'version' | 'model'>,
  mode: ValidationMode,
): ValidateFunction {
  let cache = caches.get(platform);
  if (!cache) {
    cache = { ajv: makeAjv(), fns: new Map() };
    caches.set(platform, cache);
  }
  const key = `${table.id}:${table.version}:${mode}`;
  let fn = cache.fns.get(key);
  if (fn) {
    cache.fns.delete(key);
    cache.fns.set(key, fn);
    return fn;
  }
  fn = cache.ajv.compile(recordJsonSchema(table.model, mode));
  // The compiled function is kept here, not in ajv's own schema cache (which never evicts).
  cache.ajv.removeSchema();
  cache.fns.set(key, fn);
  if (cache.fns.size > MAX_CACHED) cache.fns.delete(cache.fns.keys().next().value as string);
  return fn;
}

export const cachedValidatorCount = (platform: Platform): number => caches.get(platform)?.fns.size ?? 0;

/**
 * Validates record bodies; throws 400 with every field's messages (array bodies: `[i].field`).
 * Automatic fields (`created_at`/`updated_at`) are removed: the service keeps them.
 */
export function validateRecords(
  platform: Platform,
  table: Pick<DataTable, 'id' | 'version' | 'model'>,
  bodies: readonly unknown[],
  mode: ValidationMode | readonly ValidationMode[],
  indexed: boolean,
  firstIndex = 0,
): Record<string, unknown>[] {
  const errs: FieldErrors = {};
  const out: Record<string, unknown>[] = [];
  const auto = table.model.fields.filter((f) => f.auto).map((f) => f.name);
  bodies.forEach((body, i) => {
    const m = typeof mode === 'string' ? mode : mode[i];
    const prefix = indexed ? `[${firstIndex + i}].` : '';
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      errs[indexed ? `[${firstIndex + i}]` : 'non_field_errors'] = ['A record must be a JSON object.'];
      return;
    }
    const fn = validatorFor(platform, table, m);
    if (!fn(body)) Object.assign(errs, recordErrors(fn.errors ?? [], table.model, prefix));
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      // PostgreSQL text and jsonb cannot hold U+0000; say so per field rather than fail in SQL.
      if (hasNul(v, 0)) (errs[prefix + k] ??= []).push('Must not contain the NUL character (\\u0000).');
    }
    const copy = { ...(body as Record<string, unknown>) };
    for (const a of auto) delete copy[a];
    out.push(copy);
  });
  if (Object.keys(errs).length) throw dataErrors.validation(errs);
  return out;
}
