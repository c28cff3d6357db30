// JSON Schema validation at the edge of the domain (ARCHITECTURE rule 5): one ajv instance,
// each schema compiled once and cached, ajv errors turned into the console's field errors
// (`errors: {field: [messages]}`, nested fields as dotted paths such as `invitation_config.site.0.slug`).
import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { errors, type FieldErrors } from './errors.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = (formatsModule as unknown as { default: typeof formatsModule.default }).default;

const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, useDefaults: false });
addFormats(ajv, ['email', 'uuid', 'date-time', 'uri']);

const compiled = new WeakMap<object, ValidateFunction>();

function fieldOf(e: ErrorObject): string {
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') path.push((e.params as { missingProperty: string }).missingProperty);
  return path.join('.') || 'non_field_errors';
}

function messageOf(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'This field is required.';
    case 'type':
      return `Must be of type ${(e.params as { type: string }).type}.`;
    case 'format':
      return (e.params as { format: string }).format === 'email'
        ? 'Enter a valid e-mail address.'
        : `Must be a valid ${(e.params as { format: string }).format}.`;
    case 'enum':
      return `Must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}.`;
    case 'minLength':
      return (e.params as { limit: number }).limit === 1
        ? 'This field may not be blank.'
        : `Use at least ${(e.params as { limit: number }).limit} characters.`;
    case 'maxLength':
      return `Use at most ${(e.params as { limit: number }).limit} characters.`;
    case 'additionalProperties':
      return `Unknown field "${(e.params as { additionalProperty: string }).additionalProperty}".`;
    default:
      return e.message ? e.message[0].toUpperCase() + e.message.slice(1) + '.' : 'Invalid value.';
  }
}

/** ajv errors as field errors (every message of a field, in order, without repeats). */
export function toFieldErrors(list: ErrorObject[]): FieldErrors {
  const out: FieldErrors = {};
  for (const e of list) {
    const field = fieldOf(e);
    const msg = messageOf(e);
    out[field] ??= [];
    if (!out[field].includes(msg)) out[field].push(msg);
  }
  return out;
}

/**
 * Checks `data` against `schema` (compiled on first use) and returns it typed; 400 `invalid`
 * with field errors otherwise. A missing or non-object body is validated as `{}`.
 */
export function validate<T>(schema: JSONSchemaType<T> | Record<string, unknown>, data: unknown): T {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema) as ValidateFunction;
    compiled.set(schema, fn);
  }
  const value = data === undefined || data === null ? {} : data;
  if (!fn(value)) throw errors.invalid('Invalid input.', toFieldErrors(fn.errors ?? []));
  return value as T;
}
