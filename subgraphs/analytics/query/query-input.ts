// The writable fields of an analytics query (seed 2 "Analytics query"), parsed once from a
// REST body or GraphQL input into a typed value; every field bounded.
import type { FieldErrors } from '../../core/errors.js';
import { SLUG_PATTERN } from '../../core/slug.js';
import { analyticsErrors } from '../analytics-errors.js';
import { TEMPLATE_LIMITS } from '../template/template.js';
import type { ConnectionType, QueryFields } from './query.repository.js';

export const FIELD_LIMITS = { name: 200, description: 2000, secretKey: 200, tags: 20, tag: 50 };

const WRITABLE = ['name', 'description', 'connection_type', 'secret_key', 'query_text', 'tags'];

/** A create (`base` null) or an update of `base`: absent fields keep their value; switching to internal clears `secret_key`. */
export function parseQueryInput(body: unknown, base: QueryFields | null): QueryFields {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw analyticsErrors.validation({ non_field_errors: ['Expected a JSON object.'] });
  const b = body as Record<string, unknown>;
  const errs: FieldErrors = {};
  const add = (f: string, m: string) => (errs[f] ??= []).push(m);
  for (const k of Object.keys(b))
    if (!WRITABLE.includes(k) && !['id', 'slug', 'app', 'created_at', 'updated_at'].includes(k)) add(k, 'Unknown field.');

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
