// Parsing of function bodies (DECISIONS §7): one typed input for REST and GraphQL, every
// tenant-controlled value bounded (code size, header count and size, time-out, filter size).
import { errors, type FieldErrors } from '../../core/errors.js';
import { isValidSlug } from '../../core/slug.js';
import { compileFilter } from '../delivery/cel-filter.js';
import { SYSTEM_FUNCTIONS } from '../runtime/system-functions.js';
import type { ExecutionMode, FunctionWrite } from './function.repository.js';

export const MAX_CODE_BYTES = 256 * 1024;
export const MAX_TIMEOUT_SECONDS = 300;
const MAX_HEADERS = 20;
const MAX_HEADER_VALUE = 2048;
const MAX_FILTER = 2000;
const MODES: readonly ExecutionMode[] = ['app', 'proxy', 'system'];
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
/** Headers the platform sets itself (signature, framing). */
const RESERVED_HEADERS =
  /^(webhook-id|webhook-timestamp|webhook-signature|content-length|content-type|host|connection|transfer-encoding)$/i;

export type FunctionInput = Partial<FunctionWrite>;

/**
 * The fields of a function as a request gives them (GraphQL `FunctionInput`, or a REST body
 * through functionFieldsFromBody): absent fields undefined, values checked by
 * parseFunctionInput (a REST body may carry any JSON), errors named after the REST fields.
 */
export interface FunctionFields {
  name?: unknown;
  slug?: unknown;
  description?: unknown;
  executionMode?: unknown;
  code?: unknown;
  webhookUrl?: unknown;
  headers?: unknown;
  systemFunction?: unknown;
  timeoutSeconds?: unknown;
  filterConditions?: unknown;
  isActive?: unknown;
  isPublic?: unknown;
  /** Read-only fields a REST body named (each answers "This field is read-only."). */
  readOnly?: readonly string[];
}

const REST_FIELDS: Record<string, keyof FunctionFields> = {
  name: 'name',
  slug: 'slug',
  description: 'description',
  execution_mode: 'executionMode',
  code: 'code',
  webhook_url: 'webhookUrl',
  headers: 'headers',
  system_function: 'systemFunction',
  timeout_seconds: 'timeoutSeconds',
  filter_conditions: 'filterConditions',
  is_active: 'isActive',
  is_public: 'isPublic',
};
const READ_ONLY = ['id', 'created_at', 'updated_at', 'webhook_secret'];

/** A REST body (snake_case) as the typed fields; 400 unless it is a JSON object. Other keys are ignored. */
export function functionFieldsFromBody(body: unknown): FunctionFields {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.invalid('The request body must be a JSON object.');
  const b = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [rest, field] of Object.entries(REST_FIELDS)) if (Object.hasOwn(b, rest)) out[field] = b[rest];
  return { ...(out as FunctionFields), readOnly: READ_ONLY.filter((k) => b[k] !== undefined) };
}

function str(b: Record<string, unknown>, k: string, errs: FieldErrors, max: number, required = false): string | null | undefined {
  const v = b[k];
  if (v === undefined) {
    if (required) errs[k] = ['This field is required.'];
    return undefined;
  }
  if (v === null) return null;
  if (typeof v !== 'string') errs[k] = ['Must be a string.'];
  else if (required && !v.trim()) errs[k] = ['This field may not be blank.'];
  else if (Buffer.byteLength(v) > max) errs[k] = [`Use at most ${max} bytes.`];
  else return v;
  return undefined;
}

function bool(b: Record<string, unknown>, k: string, errs: FieldErrors): boolean | undefined {
  const v = b[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') errs[k] = ['Must be a boolean.'];
  else return v;
  return undefined;
}

function parseHeaders(v: unknown, errs: FieldErrors): Record<string, string> | undefined {
  if (v === undefined) return undefined;
  if (v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) {
    errs.headers = ['Must be an object of header names to string values.'];
    return undefined;
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) errs.headers = [`At most ${MAX_HEADERS} headers.`];
  for (const [k, val] of entries) {
    if (!HEADER_NAME.test(k)) errs.headers = [`"${k.slice(0, 100)}" is not a valid header name.`];
    else if (RESERVED_HEADERS.test(k)) errs.headers = [`Header "${k}" is set by the platform.`];
    else if (typeof val !== 'string' || val.length > MAX_HEADER_VALUE || /[\r\n\0]/.test(val))
      errs.headers = [`Header "${k}" needs a single-line string value of at most ${MAX_HEADER_VALUE} characters.`];
  }
  return errs.headers ? undefined : (v as Record<string, string>);
}

function parseUrl(v: string | null | undefined, errs: FieldErrors): string | null | undefined {
  if (v === undefined || v === null) return v;
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') errs.webhook_url = ['Use an http or https URL.'];
    else if (u.username || u.password) errs.webhook_url = ['Put credentials in headers, not in the URL.'];
    else return u.toString();
  } catch {
    errs.webhook_url = ['Enter a valid URL.'];
  }
  return undefined;
}

/** `partial` (PATCH): only the fields present; otherwise name is required. */
export function parseFunctionInput(fields: FunctionFields, partial: boolean): FunctionInput {
  const b: Record<string, unknown> = {};
  for (const [rest, field] of Object.entries(REST_FIELDS)) b[rest] = fields[field];
  const errs: FieldErrors = {};
  const out: FunctionInput = {};
  const name = str(b, 'name', errs, 200, !partial);
  if (name) out.name = name.trim();
  const slug = str(b, 'slug', errs, 60);
  if (slug !== undefined && slug !== null) {
    if (!isValidSlug(slug)) errs.slug = ['Use lower-case letters, digits and single hyphens.'];
    else out.slug = slug;
  }
  const description = str(b, 'description', errs, 2000);
  if (description !== undefined) out.description = description ?? '';
  if (b.execution_mode !== undefined) {
    if (typeof b.execution_mode === 'string' && (MODES as readonly string[]).includes(b.execution_mode))
      out.execution_mode = b.execution_mode as ExecutionMode;
    else errs.execution_mode = [`Must be one of: ${MODES.join(', ')}.`];
  }
  const code = str(b, 'code', errs, MAX_CODE_BYTES);
  if (code !== undefined) out.code = code ?? '';
  const url = parseUrl(str(b, 'webhook_url', errs, 2048), errs);
  if (url !== undefined) out.webhook_url = url;
  const headers = parseHeaders(b.headers, errs);
  if (headers !== undefined) out.headers = headers;
  const system = str(b, 'system_function', errs, 100);
  if (system !== undefined) {
    if (system !== null && !SYSTEM_FUNCTIONS.has(system))
      errs.system_function = [`Unknown system function. Available: ${[...SYSTEM_FUNCTIONS.keys()].join(', ')}.`];
    else out.system_name = system;
  }
  if (b.timeout_seconds !== undefined) {
    const t = b.timeout_seconds;
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > MAX_TIMEOUT_SECONDS)
      errs.timeout_seconds = [`Must be a whole number of seconds from 1 to ${MAX_TIMEOUT_SECONDS}.`];
    else out.timeout_seconds = t;
  }
  const filter = str(b, 'filter_conditions', errs, MAX_FILTER);
  if (filter !== undefined) {
    const f = filter === null || !filter.trim() ? null : filter;
    const problem = f === null ? null : compileFilter(f).error;
    if (problem) errs.filter_conditions = [`Invalid CEL expression: ${problem}`];
    else out.filter_conditions = f;
  }
  const active = bool(b, 'is_active', errs);
  if (active !== undefined) out.is_active = active;
  const pub = bool(b, 'is_public', errs);
  if (pub !== undefined) out.is_public = pub;
  for (const ro of fields.readOnly ?? []) errs[ro] = ['This field is read-only.'];
  if (Object.keys(errs).length) throw errors.invalid('Invalid input.', errs);
  return out;
}

/** The complete function after applying `input` over `base`; checks what each mode needs. */
export function completeFunction(base: FunctionWrite, input: FunctionInput): FunctionWrite {
  const f: FunctionWrite = { ...base, ...input };
  const errs: FieldErrors = {};
  if (f.execution_mode === 'app' && !f.code.trim()) errs.code = ['Code is required for execution_mode "app".'];
  if (f.execution_mode === 'proxy' && !f.webhook_url) errs.webhook_url = ['A webhook URL is required for execution_mode "proxy".'];
  if (f.execution_mode === 'system' && !f.system_name)
    errs.system_function = [`Name the built-in function (one of: ${[...SYSTEM_FUNCTIONS.keys()].join(', ')}).`];
  if (Object.keys(errs).length) throw errors.invalid('Invalid input.', errs);
  return f;
}

export const FUNCTION_DEFAULTS: Omit<FunctionWrite, 'name' | 'slug'> = {
  description: '',
  execution_mode: 'app',
  code: '',
  webhook_url: null,
  headers: {},
  system_name: null,
  timeout_seconds: MAX_TIMEOUT_SECONDS,
  filter_conditions: null,
  is_active: true,
  is_public: false,
};
