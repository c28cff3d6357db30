// The writable fields of an analytics query (seed 2 "Analytics query"): a REST body or the
// GraphQL input, both as the typed QueryInput, checked once into QueryFields; every field bounded.
import type { FieldErrors } from '../../core/errors.js';
import { SLUG_PATTERN } from '../../core/slug.js';
import { analyticsErrors } from '../analytics-errors.js';
import { TEMPLATE_LIMITS } from '../template/template.js';
import type { ConnectionType, QueryFields } from './query.repository.js';

export const FIELD_LIMITS = { name: 200, description: 2000, secretKey: 200, tags: 20, tag: 50 };

/**
 * The writable fields of a query as a request gives them (GraphQL `AnalyticsQueryInput`, or a
 * REST body through queryInputFromBody): absent fields are undefined; values are checked by
 * parseQueryInput (a REST body may carry any JSON), errors named after the REST fields.
 */
export interface QueryInput {
  name?: unknown;
  description?: unknown;
  connectionType?: unknown;
  secretKey?: unknown;
  queryText?: unknown;
  tags?: unknown;
  /** Fields a REST body named that are not writable: each answers "Unknown field." with the other errors. */
  unknownFields?: readonly string[];
}

const REST_FIELDS: Record<string, keyof QueryInput> = {
  name: 'name',
  description: 'description',
  connection_type: 'connectionType',
  secret_key: 'secretKey',
  query_text: 'queryText',
  tags: 'tags',
};
/** Read-only fields of the REST view a client may send back unchanged. */
const IGNORED = ['id', 'slug', 'app', 'created_at', 'updated_at'];

/** A REST body (snake_case) as the typed input; 400 unless it is a JSON object. */
export function queryInputFromBody(body: unknown): QueryInput {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw analyticsErrors.validation({ non_field_errors: ['Expected a JSON object.'] });
  const input: Record<string, unknown> = {};
  const unknownFields: string[] = [];
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (Object.hasOwn(REST_FIELDS, k)) input[REST_FIELDS[k]] = v;
    else if (!IGNORED.includes(k)) unknownFields.push(k);
  }
  return { ...(input as QueryInput), unknownFields };
}

/** A create (`base` null) or an update of `base`: absent fields keep their value; switching to internal clears `secret_key`. */
export function parseQueryInput(input: QueryInput, base: QueryFields | null): QueryFields {
  const b: Record<string, unknown> = {
    name: input.name,
    description: input.description,
    connection_type: input.connectionType,
    secret_key: input.secretKey,
    query_text: input.queryText,
    tags: input.tags,
  };
  const errs: FieldErrors = {};
  const add = (f: string, m: string) => (errs[f] ??= []).push(m);
  for (const k of input.unknownFields ?? []) add(k, 'Unknown field.');

  const text = (f: string, max: number, required: boolean, fallback: string | undefined): string => {
    const v = b[f];
    if (v === undefined) {
      if (fallback !== undefined) return fallback;
      if (required) add(f, 'This field is required.');
      return '';
    }
    if (typeof v !== 'string') {
      add(f, 'Must be a string.');
      return '';
    }
    if (required && v.trim() === '') add(f, 'May not be blank.');
    if (v.length > max) add(f, `At most ${max} characters.`);
    return v;
  };
  const name = text('name', FIELD_LIMITS.name, true, base?.name).trim();
  const description = b.description === null ? '' : text('description', FIELD_LIMITS.description, false, base?.description ?? '');
  const queryText = text('query_text', TEMPLATE_LIMITS.maxChars, true, base?.queryText);

  let connectionType: ConnectionType = base?.connectionType ?? 'external';
  if (b.connection_type !== undefined) {
    if (b.connection_type === 'external' || b.connection_type === 'internal') connectionType = b.connection_type;
    else add('connection_type', 'Must be "external" or "internal".');
  }

  let secretKey: string | null = base?.secretKey ?? null;
  if (b.secret_key !== undefined) {
    if (b.secret_key === null || b.secret_key === '') secretKey = null;
    else if (typeof b.secret_key !== 'string' || b.secret_key.length > FIELD_LIMITS.secretKey || !/^[A-Za-z0-9_-]+$/.test(b.secret_key))
      add('secret_key', `A secret key: letters, digits, "_" and "-", at most ${FIELD_LIMITS.secretKey} characters.`);
    else secretKey = b.secret_key;
  }
  if (connectionType === 'internal') {
    if (b.secret_key !== undefined && b.secret_key !== null && base === null)
      add('secret_key', 'Must be null or omitted for an internal query.');
    secretKey = null;
  } else if (!secretKey) add('secret_key', 'Required for an external query.');

  let tags: string[] = base?.tags ?? [];
  if (b.tags !== undefined) {
    if (!Array.isArray(b.tags) || b.tags.length > FIELD_LIMITS.tags) add('tags', `A list of at most ${FIELD_LIMITS.tags} tag slugs.`);
    else if (!b.tags.every((t) => typeof t === 'string' && t.length <= FIELD_LIMITS.tag && SLUG_PATTERN.test(t)))
      add('tags', 'Each tag is a slug.');
    else tags = [...new Set(b.tags as string[])];
  }
  if (Object.keys(errs).length) throw analyticsErrors.validation(errs);
  return { name, description, connectionType, secretKey, queryText, tags };
}
