// Secret types of a site (seed 2 "Secret type", DECISIONS §9): the JSON Schemas secret values
// must satisfy. Exports for the secrets module: requireSecretType, validateSecretValue,
// ensureSystemTypes. Error bodies follow the seed's Secrets table (secrets-errors.ts).
import { Ajv, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import type { RequestContext, SiteRef } from '../core/context.js';
import { isUniqueViolation } from '../core/db.js';
import { classifyDbError } from '../core/db-errors.js';
import { errors, type FieldErrors } from '../core/errors.js';
import { orderBy, pageRequest, searchTerm, type ListInput, type ListResult } from '../core/listing.js';
import { slugify, withUniqueSlug } from '../core/slug.js';
import { linearRegExpEngine, patternProblem } from '../core/safe-regexp.js';
import { toFieldErrors } from '../core/validate.js';
import { can } from '../tenancy/tenancy.api.js';
import * as repo from './secret-type.repository.js';
import { secretsError } from './secrets-errors.js';

import { SENSITIVITIES, type Sensitivity } from './system-types.js';

export { SENSITIVITIES, type Sensitivity };
export const TYPE_KINDS = ['system', 'custom'] as const;

export interface SecretTypeRecord {
  id: number;
  slug: string;
  name: string;
  type: 'system' | 'custom';
  sensitivityLevel: Sensitivity;
  schema: object;
}

export type { SecretTypeRow } from './secret-type.repository.js';
export type SeedDb = repo.AnyDb;

// User schemas are arbitrary JSON Schemas, so this instance is not strict (unknown keywords
// such as `title` or vendor extensions are allowed) unlike the platform's own input schemas
// in core/validate.ts; the meta-schema is still checked on every create and update. Patterns
// (`pattern`, `patternProperties`) run on RE2 (core/safe-regexp.ts), never on the backtracking engine.
const formats = (formatsModule as unknown as { default: typeof formatsModule.default }).default;
const ajv = new Ajv({
  allErrors: true,
  strict: false,
  validateSchema: true,
  useDefaults: false,
  code: { regExp: linearRegExpEngine },
});
formats(ajv);

/** Compiled validators by type id, recompiled when the stored schema text changes. */
const compiledByType = new Map<number, { text: string; fn: ValidateFunction }>();

/** Keywords whose values are data, not schemas: a `pattern` key inside them is not a pattern. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** Every `pattern` and `patternProperties` key RE2 cannot compile, as `<JSON pointer>: <why>`. */
function patternProblems(node: unknown, at: string, depth = 0): string[] {
  if (typeof node !== 'object' || node === null || depth > 64) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(node)) {
    const here = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (k === 'pattern' && typeof v === 'string') {
      const why = patternProblem(v);
      if (why) out.push(`${here}: ${why}`);
    }
    if (k === 'patternProperties' && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      for (const p of Object.keys(v)) {
        const why = patternProblem(p);
        if (why) out.push(`${here}/${p}: ${why}`);
      }
    }
    if (!DATA_KEYWORDS.has(k)) out.push(...patternProblems(v, here, depth + 1));
  }
  return out;
}

function compileSchema(schema: unknown): ValidateFunction {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw errors.invalid('Invalid input.', { schema: ['Must be a JSON Schema object.'] });
  }
  if (!ajv.validateSchema(schema)) {
    const detail = (ajv.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
    throw errors.invalid('Invalid input.', { schema: detail.length ? detail : ['Not a valid JSON Schema.'] });
  }
  const badPatterns = patternProblems(schema, '');
  if (badPatterns.length) throw errors.invalid('Invalid input.', { schema: badPatterns });
  try {
    return ajv.compile(schema);
  } catch (e) {
    throw errors.invalid('Invalid input.', { schema: [`Not a usable JSON Schema: ${(e as Error).message}`] });
  }
}

export function validateSecretValue(type: SecretTypeRecord, value: unknown): void {
  const text = JSON.stringify(type.schema);
  let entry = compiledByType.get(type.id);
  if (!entry || entry.text !== text) {
    entry = { text, fn: compileSchema(type.schema) };
    compiledByType.set(type.id, entry);
  }
  // Messages name fields and schema constraints only, never the submitted value.
  if (!entry.fn(value))
    throw secretsError(400, 'schema_validation_failed', {
      error: 'Schema validation failed',
      detail: toFieldErrors(entry.fn.errors ?? []),
    });
}

/** Seeds the system types of a site; idempotent (Prisma transaction or pg client/pool). */
export async function ensureSystemTypes(db: SeedDb, siteId: number): Promise<void> {
  await repo.insertSystemTypes(db, siteId);
}

// Sites created before this module, or inserted without createSite, get their system types on
// first use here: once per site per platform (site ids are never reused within a database;
// two platforms in one process, as in tests, have databases of their own).
const ensured = new WeakMap<RequestContext['platform'], Set<number>>();
async function ensureOnce(ctx: RequestContext, siteId: number): Promise<void> {
  let sites = ensured.get(ctx.platform);
  if (!sites) ensured.set(ctx.platform, (sites = new Set()));
  if (sites.has(siteId)) return;
  await ensureSystemTypes(ctx.platform.pool, siteId);
  sites.add(siteId);
}

/** The tenant site after the permission check: 403 `{error, detail}` without it. */
export async function secretsSite(ctx: RequestContext, permission: 'secrets:read' | 'secrets:write'): Promise<SiteRef> {
  const site = ctx.site;
  if (!site) throw errors.tenantRequired();
  if (!(await can(ctx, permission, 'site', site.id))) throw errors.permissionDenied();
  // Types are site configuration: an app's API key may read them but not change them.
  if (permission === 'secrets:write' && ctx.principal.kind !== 'user') throw errors.permissionDenied();
  await ensureOnce(ctx, site.id);
  return site;
}

export const toRecord = (r: repo.SecretTypeRow): SecretTypeRecord => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  type: r.type,
  sensitivityLevel: r.sensitivity_level,
  schema: r.schema,
});

async function findRow(ctx: RequestContext, siteId: number, slug: string): Promise<repo.SecretTypeRow> {
  const row = await repo.findBySlug(ctx.platform.pool, siteId, slug);
  if (!row) throw errors.notFound('Secret type not found.');
  return row;
}

/** A type of this host's site by slug, for the secrets module: 404 when there is none. */
export async function requireSecretType(ctx: RequestContext, slug: string): Promise<SecretTypeRecord> {
  if (!ctx.site) throw errors.tenantRequired();
  await ensureOnce(ctx, ctx.site.id);
  return toRecord(await findRow(ctx, ctx.site.id, slug));
}

const ORDERING = {
  name: 'name',
  type: 'type',
  sensitivity_level: 'sensitivity_level',
  created_at: 'created_at',
  modified_at: 'modified_at',
};

export interface SecretTypeListInput extends ListInput {
  /** A type kind (TYPE_KINDS). */
  type?: string;
  /** A sensitivity (SENSITIVITIES). */
  sensitivityLevel?: string;
}

function oneOf<T extends string>(value: string | undefined, name: string, allowed: readonly T[]): T | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (!allowed.includes(v as T)) throw errors.field(name, `Must be one of: ${allowed.join(', ')}.`);
  return v as T;
}

export async function listSecretTypes(ctx: RequestContext, input: SecretTypeListInput): Promise<ListResult<repo.SecretTypeRow>> {
  const site = await secretsSite(ctx, 'secrets:read');
  const page = pageRequest(input);
  const filter = {
    siteId: site.id,
    search: searchTerm(input.search),
    type: oneOf(input.type, 'type', TYPE_KINDS),
    sensitivity: oneOf(input.sensitivityLevel, 'sensitivity_level', SENSITIVITIES),
  };
  const order = orderBy(input.ordering, ORDERING, 'name');
  const { rows, count } = await repo.listTypes(ctx.platform.pool, filter, order, page.pageSize, page.offset);
  return { page, count, items: rows };
}

export async function getSecretType(ctx: RequestContext, slug: string): Promise<repo.SecretTypeRow> {
  const site = await secretsSite(ctx, 'secrets:read');
  return findRow(ctx, site.id, slug);
}

function bodyOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw errors.invalid('Invalid input.', { non_field_errors: ['Expected a JSON object.'] });
  return body as Record<string, unknown>;
}

function text(b: Record<string, unknown>, field: string, errs: FieldErrors, max: number, required: boolean): string | undefined {
  const v = b[field];
  if (v === undefined || v === null) {
    if (required) errs[field] = ['This field is required.'];
    return undefined;
  }
  if (typeof v !== 'string') errs[field] = ['Must be of type string.'];
  else if (required && !v.trim()) errs[field] = ['This field may not be blank.'];
  else if (v.length > max) errs[field] = [`Use at most ${max} characters.`];
  else return field === 'name' ? v.trim() : v;
  return undefined;
}

const duplicateName = (name: string) =>
  secretsError(400, 'duplicate_name', { message: `A secret type named "${name}" already exists.`, field: 'name' });

export async function createSecretType(ctx: RequestContext, body: unknown): Promise<repo.SecretTypeRow> {
  const site = await secretsSite(ctx, 'secrets:write');
  const b = bodyOf(body);
  const errs: FieldErrors = {};
  const name = text(b, 'name', errs, 100, true);
  const description = text(b, 'description', errs, 2000, false) ?? '';
  const type = b.type ?? 'custom';
  if (!TYPE_KINDS.includes(type as 'custom')) errs.type = [`Must be one of: ${TYPE_KINDS.join(', ')}.`];
  const sensitivity = b.sensitivity_level ?? 'private';
  if (!SENSITIVITIES.includes(sensitivity as Sensitivity)) errs.sensitivity_level = [`Must be one of: ${SENSITIVITIES.join(', ')}.`];
  if (b.schema === undefined) errs.schema = ['This field is required.'];
  if (Object.keys(errs).length) throw errors.invalid('Invalid input.', errs);
  compileSchema(b.schema);
  const pool = ctx.platform.pool;
  if (await repo.nameTaken(pool, site.id, name!)) throw duplicateName(name!);
  const isSlugConflict = (e: unknown) =>
    isUniqueViolation(e) && (e as { constraint?: string }).constraint !== 'secret_types_site_id_name_key';
  try {
    return await withUniqueSlug({
      base: slugify(name!, 'secret-type'),
      taken: (base) => repo.takenSlugs(pool, site.id, base),
      isSlugConflict,
      insert: (slug) =>
        repo.insertType(pool, {
          siteId: site.id,
          slug,
          name: name!,
          description,
          type: type as string,
          sensitivity: sensitivity as string,
          schema: b.schema,
          createdById: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
        }),
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicateName(name!); // a concurrent create of the same name
    throw e;
  }
}

export async function updateSecretType(ctx: RequestContext, slug: string, body: unknown): Promise<repo.SecretTypeRow> {
  const site = await secretsSite(ctx, 'secrets:write');
  const row = await findRow(ctx, site.id, slug);
  const b = bodyOf(body);
  for (const [field, current] of [
    ['type', row.type],
    ['sensitivity_level', row.sensitivity_level],
  ] as const) {
    if (b[field] !== undefined && b[field] !== current) {
      throw secretsError(400, 'immutable_field', {
        error: `The field "${field}" cannot be changed.`,
        detail: { field, current, attempted: b[field] },
      });
    }
  }
  const errs: FieldErrors = {};
  const name = text(b, 'name', errs, 100, b.name !== undefined);
  const description = text(b, 'description', errs, 2000, false);
  if (Object.keys(errs).length) throw errors.invalid('Invalid input.', errs);
  if (b.schema !== undefined) {
    // Analytics and the other modules rely on the shape of the system types.
    if (row.type === 'system' && JSON.stringify(b.schema) !== JSON.stringify(row.schema)) {
      throw secretsError(400, 'system_type', { error: 'The schema of a system secret type cannot be changed.' });
    }
    compileSchema(b.schema);
  }
  if (name !== undefined && (await repo.nameTaken(ctx.platform.pool, site.id, name, row.id))) throw duplicateName(name);
  try {
    return await repo.updateType(ctx.platform.pool, row.id, { name, description, schema: b.schema });
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicateName(name ?? row.name);
    throw e;
  }
}

export async function deleteSecretType(ctx: RequestContext, slug: string): Promise<{ message: string; detail: string }> {
  const site = await secretsSite(ctx, 'secrets:write');
  const row = await findRow(ctx, site.id, slug);
  if (row.type === 'system')
    throw secretsError(400, 'system_type', { error: `"${row.name}" is a system secret type and cannot be deleted.` });
  const inUse = async () => {
    const n = await repo.secretsUsing(ctx.platform.pool, row.id);
    return secretsError(400, 'type_in_use', {
      error: `Secret type "${row.name}" is used by ${n} secret${n === 1 ? '' : 's'} and cannot be deleted.`,
    });
  };
  try {
    if (!(await repo.deleteUnused(ctx.platform.pool, row.id))) throw await inUse();
  } catch (e) {
    // A secret created between the check and the delete: the foreign key refuses it.
    if (classifyDbError(e)?.kind === 'foreign_key') throw await inUse();
    throw e;
  }
  compiledByType.delete(row.id);
  return { message: 'Secret type deleted.', detail: `Secret type "${row.name}" (${row.slug}) was deleted.` };
}
