// A Frictionless Data Package (or one resource of it) → validated TableModels, and a model
// back to the normalized schema JSON that is stored and returned. Every rule is in
// docs/data-service.md "Schema rules"; every problem of a package is reported at once as
// 400 `{error, details: {"resources[0].schema.fields[2].type": [...]}}`.
import type { FieldErrors } from '../../core/errors.js';
import { dataErrors } from '../data-errors.js';
import { columnTypeOf, isPlainObject, parseField } from './field-parse.js';
import {
  ON_DELETE_ACTIONS,
  type FieldModel,
  type ForeignKeyModel,
  type OnDelete,
  type Provider,
  type SearchFieldModel,
  type SearchWeight,
  type TableModel,
} from './table-model.js';

export const TABLE_NAME = /^[a-z][a-z0-9_-]*$/;
const MAX_FIELDS = 500;
const MAX_RESOURCES = 100;
const RESOURCE_KEYS = new Set(['name', 'description', 'provider', 'schema', 'title', 'profile']);
const SCHEMA_KEYS = new Set(['fields', 'primaryKey', 'foreignKeys', 'search_fields', 'search_language', 'hierarchy', 'missingValues']);
const LANGUAGE = /^[a-z_]{1,63}$/;

const asList = (v: unknown): unknown[] | null => (typeof v === 'string' ? [v] : Array.isArray(v) ? v : null);
const strings = (v: unknown): string[] | null => {
  const l = asList(v);
  return l && l.length > 0 && l.every((x) => typeof x === 'string') ? (l as string[]) : null;
};

/** `{app_slug}_{name}` with hyphens as underscores; null when longer than 63 bytes. */
export function physicalNameFor(appSlug: string, name: string): string | null {
  const physical = `${appSlug}_${name}`.replace(/-/g, '_');
  return Buffer.byteLength(physical) <= 63 ? physical : null;
}

function parsePrimaryKey(raw: unknown, fields: FieldModel[], at: string, errs: FieldErrors): string[] {
  const add = (m: string) => (errs[`${at}.primaryKey`] ??= []).push(m);
  if (raw === undefined) {
    const id = fields.find((f) => f.name === 'id');
    if (id) return ['id'];
    fields.unshift({ name: 'id', type: 'string', format: 'uuid', constraints: {}, nullable: false });
    return ['id'];
  }
  const names = strings(raw);
  if (!names) {
    add('Must be a field name or a list of field names.');
    return [];
  }
  if (new Set(names).size !== names.length) add('Lists a field twice.');
  for (const n of names) {
    const f = fields.find((x) => x.name === n);
    if (!f) add(`No field "${n}".`);
    else if (f.type === 'object' || f.type === 'array' || f.type === 'any') add(`"${n}" is of type ${f.type}, which cannot be a key.`);
  }
  return names;
}

function applyPrimaryKey(fields: FieldModel[], pk: string[], at: string, errs: FieldErrors): void {
  for (const n of pk) {
    const f = fields.find((x) => x.name === n);
    if (f) f.nullable = false;
  }
  if (pk.length !== 1) return;
  const f = fields.find((x) => x.name === pk[0]);
  if (f?.type === 'string') {
    if (f.format && f.format !== 'uuid')
      (errs[`${at}.primaryKey`] ??= []).push(`A single string key is a UUID; "${f.name}" has format ${f.format}.`);
    f.format = 'uuid';
    f.generated = 'uuid';
  } else if (f?.type === 'integer') f.generated = 'identity';
}

function parseForeignKeys(raw: unknown, self: string, fields: FieldModel[], at: string, errs: FieldErrors): ForeignKeyModel[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    (errs[`${at}.foreignKeys`] ??= []).push('Must be a list.');
    return [];
  }
  const out: ForeignKeyModel[] = [];
  raw.forEach((fk, i) => {
    const p = `${at}.foreignKeys[${i}]`;
    const add = (k: string, m: string) => (errs[`${p}${k}`] ??= []).push(m);
    if (!isPlainObject(fk) || !isPlainObject(fk.reference)) return add('', 'Must be {fields, reference: {resource, fields}}.');
    const local = strings(fk.fields);
    const ref = fk.reference;
    const remote = strings(ref.fields);
    if (!local) return add('.fields', 'Must be a field name or a list of field names.');
    if (!remote) return add('.reference.fields', 'Must be a field name or a list of field names.');
    if (typeof ref.resource !== 'string') return add('.reference.resource', 'Must be a table name ("" for this table).');
    if (local.length !== remote.length) return add('.reference.fields', 'Must list as many fields as `fields`.');
    const actions = fk['x-actions'];
    const rawAction = isPlainObject(actions) ? actions.onDelete : undefined;
    const onDelete = (typeof rawAction === 'string' ? rawAction.toUpperCase().replace(/_/g, ' ') : (rawAction ?? 'RESTRICT')) as OnDelete;
    if (!ON_DELETE_ACTIONS.includes(onDelete)) return add('.x-actions.onDelete', `Must be one of: ${ON_DELETE_ACTIONS.join(', ')}.`);
    for (const n of local) {
      const f = fields.find((x) => x.name === n);
      if (!f) add('.fields', `No field "${n}".`);
      else if (onDelete === 'SET NULL' && !f.nullable)
        add('.x-actions.onDelete', `SET NULL needs "${n}" to be nullable (not required, not a key).`);
      else if (onDelete === 'SET DEFAULT' && f.default === undefined)
        add('.x-actions.onDelete', `SET DEFAULT needs "${n}" to define a default.`);
    }
    out.push({ fields: local, reference: { resource: ref.resource === '' ? self : ref.resource, fields: remote }, onDelete });
  });
  return out;
}

function parseSearch(schema: Record<string, unknown>, fields: FieldModel[], at: string, errs: FieldErrors): TableModel['search'] {
  if (schema.search_fields === undefined) {
    if (schema.search_language !== undefined) (errs[`${at}.search_language`] ??= []).push('Needs search_fields.');
    return null;
  }
  const list = asList(schema.search_fields);
  const add = (k: string, m: string) => (errs[`${at}.${k}`] ??= []).push(m);
  if (!list || list.length === 0) {
    add('search_fields', 'Must be a non-empty list of field names or {name, weight}.');
    return null;
  }
  const out: SearchFieldModel[] = [];
  list.forEach((item, i) => {
    const name = typeof item === 'string' ? item : isPlainObject(item) ? item.name : undefined;
    const weight = (isPlainObject(item) && item.weight !== undefined ? item.weight : 'A') as SearchWeight;
    const f = fields.find((x) => x.name === name);
    if (!f || f.type !== 'string') return add(`search_fields[${i}]`, 'Must name a string field.');
    if (!['A', 'B', 'C', 'D'].includes(weight)) return add(`search_fields[${i}].weight`, 'Must be A, B, C or D.');
    if (!out.some((s) => s.name === f.name)) out.push({ name: f.name, weight });
  });
  const language = schema.search_language ?? 'english';
  if (typeof language !== 'string' || !LANGUAGE.test(language))
    add('search_language', 'Must be a text-search configuration name such as english.');
  for (const reserved of ['rank', 'excerpt']) {
    if (fields.some((f) => f.name === reserved))
      add('search_fields', `A searchable table cannot have a field "${reserved}": search results add it.`);
  }
  return { fields: out, language: String(language) };
}

/**
 * One resource → TableModel; null when it has errors (recorded in `errs` under `at`).
 * Checks that need the other tables (foreign-key targets) are in `checkReferences`.
 */
export function parseTableResource(raw: unknown, at: string, errs: FieldErrors): TableModel | null {
  const before = Object.keys(errs).length;
  const add = (k: string, m: string) => (errs[k ? `${at}.${k}` : at] ??= []).push(m);
  if (!isPlainObject(raw)) {
    add('', 'Must be an object {name, provider?, schema}.');
    return null;
  }
  for (const k of Object.keys(raw)) if (!RESOURCE_KEYS.has(k)) add(k, `Unknown key "${k}".`);
  const name = raw.name;
  if (typeof name !== 'string' || !TABLE_NAME.test(name) || name.length > 63)
    add('name', 'Use lower-case letters, digits, - and _, starting with a letter.');
  const provider = (raw.provider ?? 'flat_table') as Provider;
  if (provider !== 'flat_table' && provider !== 'jsonb') add('provider', 'Must be flat_table or jsonb.');
  if (raw.description !== undefined && typeof raw.description !== 'string') add('description', 'Must be a string.');
  const schema = raw.schema;
  if (!isPlainObject(schema)) {
    add('schema', 'Must be a Table Schema object with fields.');
    return null;
  }
  const sat = `${at}.schema`;
  for (const k of Object.keys(schema)) if (!SCHEMA_KEYS.has(k)) (errs[`${sat}.${k}`] ??= []).push(`Unknown key "${k}".`);
  if (!Array.isArray(schema.fields) || schema.fields.length === 0 || schema.fields.length > MAX_FIELDS) {
    (errs[`${sat}.fields`] ??= []).push(`Must be a list of 1 to ${MAX_FIELDS} fields.`);
    return null;
  }
  const seen = new Set<string>();
  const fields = schema.fields.map((f, i) => parseField(f, `${sat}.fields[${i}]`, seen, errs)).filter((f): f is FieldModel => f !== null);
  if (Object.keys(errs).length > before) return null;
  const primaryKey = parsePrimaryKey(schema.primaryKey, fields, sat, errs);
  applyPrimaryKey(fields, primaryKey, sat, errs);
  const foreignKeys = parseForeignKeys(schema.foreignKeys, name as string, fields, sat, errs);
  if (provider === 'jsonb' && foreignKeys.length > 0)
    (errs[`${sat}.foreignKeys`] ??= []).push('Foreign keys need the flat_table provider.');
  const search = parseSearch(schema, fields, sat, errs);
  let hierarchy: TableModel['hierarchy'] = null;
  if (schema.hierarchy !== undefined) {
    const parent = isPlainObject(schema.hierarchy) ? schema.hierarchy.parent_field : undefined;
    const fk = foreignKeys.find((k) => k.fields.length === 1 && k.fields[0] === parent && k.reference.resource === name);
    if (!fk) (errs[`${sat}.hierarchy.parent_field`] ??= []).push('Must name a field with a foreign key to this same table.');
    else hierarchy = { parentField: parent as string };
  }
  if (Object.keys(errs).length > before) return null;
  return {
    name: name as string,
    description: (raw.description as string | undefined) ?? '',
    provider,
    fields,
    primaryKey,
    foreignKeys,
    softDelete: fields.some((f) => f.name === 'is_deleted'),
    search,
    hierarchy,
  };
}

/**
 * Cross-table checks of `model`'s foreign keys: the target table exists (`lookup` sees this
 * package and the app's stored tables), the referenced fields are its primary key or one
 * unique field, and the column types match.
 */
export function checkReferences(model: TableModel, lookup: (name: string) => TableModel | undefined, at: string, errs: FieldErrors): void {
  model.foreignKeys.forEach((fk, i) => {
    const p = `${at}.schema.foreignKeys[${i}].reference`;
    const add = (k: string, m: string) => (errs[`${p}.${k}`] ??= []).push(m);
    const target = fk.reference.resource === model.name ? model : lookup(fk.reference.resource);
    if (!target) return add('resource', `No table "${fk.reference.resource}" in this app or package.`);
    if (target.provider !== 'flat_table') return add('resource', `"${target.name}" uses the jsonb provider, which cannot be referenced.`);
    const refFields = fk.reference.fields.map((n) => target.fields.find((f) => f.name === n));
    const missing = fk.reference.fields.filter((_, j) => !refFields[j]);
    if (missing.length) return add('fields', `No field ${missing.map((m) => `"${m}"`).join(', ')} in "${target.name}".`);
    const isKey =
      fk.reference.fields.length === target.primaryKey.length && fk.reference.fields.every((n) => target.primaryKey.includes(n));
    const isUnique = fk.reference.fields.length === 1 && refFields[0]!.constraints.unique === true;
    if (!isKey && !isUnique) return add('fields', `Must be the primary key of "${target.name}" or a unique field.`);
    fk.fields.forEach((n, j) => {
      const local = model.fields.find((f) => f.name === n)!;
      if (columnTypeOf(local) !== columnTypeOf(refFields[j]!)) {
        add('fields', `"${n}" (${columnTypeOf(local)}) cannot reference "${refFields[j]!.name}" (${columnTypeOf(refFields[j]!)}).`);
      }
    });
  });
}

/** A whole package body → models in submission order; 400 with every problem otherwise. */
export function parsePackage(body: unknown): TableModel[] {
  const errs: FieldErrors = {};
  if (!isPlainObject(body) || !Array.isArray(body.resources) || body.resources.length === 0 || body.resources.length > MAX_RESOURCES) {
    throw dataErrors.validation({ resources: [`Must be a list of 1 to ${MAX_RESOURCES} table resources.`] }, 'Invalid data package.');
  }
  const models = body.resources.map((r, i) => parseTableResource(r, `resources[${i}]`, errs));
  const names = new Set<string>();
  models.forEach((m, i) => {
    if (!m) return;
    if (names.has(m.name)) (errs[`resources[${i}].name`] ??= []).push(`Table "${m.name}" appears twice.`);
    names.add(m.name);
  });
  if (Object.keys(errs).length > 0) throw dataErrors.validation(errs, 'Invalid data package.');
  return models as TableModel[];
}

function fieldJson(f: FieldModel): Record<string, unknown> {
  const out: Record<string, unknown> = { name: f.name, type: f.type };
  if (f.format) out.format = f.format;
  if (f.description) out.description = f.description;
  if (f.default !== undefined) out.default = f.default;
  out.constraints = { ...f.constraints };
  return out;
}

/** The stored and returned schema; `parseTableResource` of it yields the same model. */
export function normalizeSchema(model: TableModel): Record<string, unknown> {
  const schema: Record<string, unknown> = {
    fields: model.fields.map(fieldJson),
    primaryKey: [...model.primaryKey],
    foreignKeys: model.foreignKeys.map((fk) => ({
      fields: [...fk.fields],
      reference: { resource: fk.reference.resource, fields: [...fk.reference.fields] },
      'x-actions': { onDelete: fk.onDelete },
    })),
  };
  if (model.search) {
    schema.search_fields = model.search.fields.map((s) => ({ name: s.name, weight: s.weight }));
    schema.search_language = model.search.language;
  }
  if (model.hierarchy) schema.hierarchy = { parent_field: model.hierarchy.parentField };
  return schema;
}

/** A stored catalogue row's schema back to its model (stored schemas are valid by construction). */
export function modelFromStored(name: string, provider: Provider, description: string, schema: unknown): TableModel {
  const errs: FieldErrors = {};
  const model = parseTableResource({ name, provider, description, schema }, 'stored', errs);
  if (!model) throw new Error(`Stored schema of datatable "${name}" no longer parses: ${JSON.stringify(errs)}`);
  return model;
}
