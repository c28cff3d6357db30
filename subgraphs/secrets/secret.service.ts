// Secrets at site and app tier (seed document 2, DECISIONS §9): create, read, replace, delete,
// each write with its history row in the same transaction. Values are validated against the
// type's schema, sealed by secret-crypto, and leave this module only in the REST body of the
// caller entitled to them — never in logs, errors, history or GraphQL.
import type { RequestContext } from '../core/context.js';
import { isUniqueViolation, type Tx } from '../core/db.js';
import { accessPredicate } from '../tenancy/tenancy.api.js';
import { recordHistory } from './history.service.js';
import { actor, denyRead, requireWrite, secretNotFound, siteOf, SITE_TIER, tierOf, type Tier } from './secret-access.js';
import { secretsError } from './secrets-errors.js';
import { openValue, sealValue, type SecretIdentity } from './secret-crypto.js';
import { secretRepository, type ReadRow, type SecretRow } from './secret.repository.js';
import { requireSecretType, validateSecretValue, type SecretTypeRecord } from './secret-type.service.js';
import { resolveTags } from './tag.service.js';

/** A secret as REST shows it: the type by name, tags by name. */
export interface SecretView {
  key: string;
  tags: string[];
  secret_type: string;
  value: unknown;
}

/** Keys are identifiers (they appear in `secret.<key>.<field>` references, so no dots). */
const KEY_RE = /^[A-Za-z0-9_-]{1,200}$/;

export const identityOf = (row: Pick<SecretRow, 'siteId' | 'appId' | 'key' | 'sensitivity'>): SecretIdentity => ({
  siteId: row.siteId,
  appId: row.appId,
  key: row.key,
  sensitivity: row.sensitivity,
});

export async function toSecretView(ctx: RequestContext, row: ReadRow): Promise<SecretView> {
  return { key: row.key, tags: row.tagNames, secret_type: row.typeName, value: await openValue(ctx.platform, identityOf(row), row.stored) };
}

interface SecretInput {
  key: string;
  typeSlug: string;
  value: unknown;
  tags: string[];
}

const invalid = (fields: Record<string, string[]>) => secretsError(400, 'invalid', { error: 'Invalid input.', detail: fields });

/** Body fields; `typeField` is `secret_type` (site routes) or `type_slug` (app route). */
function parseInput(body: unknown, typeField: 'secret_type' | 'type_slug', defaultKey?: string): SecretInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid({ non_field_errors: ['Expected a JSON object.'] });
  const b = body as Record<string, unknown>;
  const errs: Record<string, string[]> = {};
  const key = b.key === undefined && defaultKey !== undefined ? defaultKey : b.key;
  if (typeof key !== 'string' || !KEY_RE.test(key)) errs.key = ['Required: 1–200 letters, digits, "_" or "-".'];
  const typeSlug = b[typeField];
  if (typeof typeSlug !== 'string' || !typeSlug.trim()) errs[typeField] = ['Required: a secret type slug.'];
  // Only presence is checked here; what a value must look like is the type's schema's job.
  if (b.value === undefined) errs.value = ['This field is required.'];
  const tags = b.tags ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string' || !t.trim())) errs.tags = ['Must be a list of tag names or slugs.'];
  if (Object.keys(errs).length) throw invalid(errs);
  return {
    key: key as string,
    typeSlug: (typeSlug as string).trim(),
    value: b.value,
    tags: [...new Set((tags as string[]).map((t) => t.trim()))],
  };
}

/** The type, validated value and sealed form for a write. */
async function prepareValue(ctx: RequestContext, tier: Tier, input: SecretInput) {
  const type: SecretTypeRecord = await requireSecretType(ctx, input.typeSlug);
  validateSecretValue(type, input.value);
  const id: SecretIdentity = { siteId: siteOf(ctx).id, appId: tier.appId, key: input.key, sensitivity: type.sensitivityLevel };
  return { type, sealed: await sealValue(ctx.platform, id, input.value) };
}

const duplicate = (key: string, tier: Tier) =>
  secretsError(409, 'conflict', {
    error: 'Secret already exists.',
    detail: `A secret with key "${key}" already exists at ${tier.appSlug ? `app "${tier.appSlug}"` : 'site'} level.`,
  });

/** Runs a write transaction, turning a key collision into the documented 409. */
async function write<T>(ctx: RequestContext, key: string, tier: Tier, fn: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await ctx.platform.prisma.$transaction((tx) => fn(tx));
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicate(key, tier);
    throw e;
  }
}

async function reload(ctx: RequestContext, tier: Tier, key: string): Promise<SecretRow> {
  const row = await secretRepository.findByKey(ctx.platform.pool, siteOf(ctx).id, tier.appId, key);
  if (!row) throw secretNotFound(key);
  return row;
}

/** POST /api/secrets/ (`app` in the body) and POST /api/apps/{app}/secrets/ (`appRef`). */
export async function createSecret(ctx: RequestContext, body: unknown, appRef?: string): Promise<SecretView> {
  const fromApp = appRef !== undefined;
  const input = parseInput(body, fromApp ? 'type_slug' : 'secret_type');
  const tier = await tierOf(ctx, fromApp ? appRef : (body as Record<string, unknown>).app);
  const site = await requireWrite(ctx, tier.appId);
  const { type, sealed } = await prepareValue(ctx, tier, input);
  const who = actor(ctx);
  await write(ctx, input.key, tier, async (tx) => {
    const tags = await resolveTags(ctx, tx, input.tags);
    const id = await secretRepository.insert(tx, {
      siteId: site.id,
      appId: tier.appId,
      key: input.key,
      typeId: type.id,
      sealed,
      userId: who.userId,
    });
    await secretRepository.setTags(
      tx,
      id,
      tags.map((t) => t.id),
    );
    await recordHistory(tx, {
      siteId: site.id,
      ...tier,
      key: input.key,
      secretType: type.name,
      action: '+',
      ...who,
      changes: { secret_type: type.slug, tags: tags.map((t) => t.slug).sort() },
    });
  });
  return toSecretView(ctx, await reload(ctx, tier, input.key));
}

/** Which tier a request on one key addresses: the site tier, or with `app` (slug or UUID) that app's. */
export interface TierInput {
  app?: string;
}

/** Retrieval: the tier (app tier first, then site tier) and optionally tags the secret must carry one of. */
export interface SecretReadInput extends TierInput {
  tags?: string[];
}

/** The secret `key` of the tier named by `app`, exactly (writes never fall back a tier). */
async function requireExact(ctx: RequestContext, key: string, input: TierInput): Promise<{ tier: Tier; row: SecretRow }> {
  const tier = await tierOf(ctx, input.app);
  await requireWrite(ctx, tier.appId);
  return { tier, row: await reload(ctx, tier, key) };
}

/** GET /api/secrets/{key}/: app tier first when `app` is given, then site tier; `tags` filter. */
export async function getSecret(ctx: RequestContext, key: string, input: SecretReadInput): Promise<SecretView> {
  const site = siteOf(ctx);
  const tier = await tierOf(ctx, input.app);
  // Lookup and permission in one query: every answer needs both.
  // A grant seen in the last moments skips the permission predicate (core/grant-cache.ts).
  const cached = ctx.platform.grants.recent<boolean>(ctx, 'secrets:read', String(site.id)) === true;
  const access = cached
    ? { sql: 'TRUE', params: [] }
    : ctx.principal.kind === 'anonymous'
      ? { sql: 'FALSE', params: [] }
      : accessPredicate(ctx, 'secrets:read', 'site', 'st', 4);
  const wanted = (input.tags ?? []).map((t) => t.trim()).filter(Boolean);
  const { row, permitted } = await secretRepository.findForRead(ctx.platform.pool, site.id, tier.appId, key, access, wanted.length > 0);
  if (permitted && !cached) ctx.platform.grants.remember(ctx, 'secrets:read', String(site.id), true);
  if (row && row.sensitivity !== 'public' && !permitted) throw denyRead(ctx);
  // A caller who may not read the tier learns no more than "forbidden" (signed in) or
  // "authenticate" (anonymous): a missing key and a private one answer alike, so neither
  // reveals which keys exist. Anonymous callers read public secrets only.
  if (!row && !permitted) throw denyRead(ctx);
  if (!row) throw secretNotFound(key);
  if (wanted.length && !wanted.some((t) => row.tagSlugs.includes(t) || row.tagNames.includes(t))) {
    throw secretsError(404, 'not_found', {
      error: 'Secret not found.',
      detail: `Secret "${key}" has none of the tags ${wanted.join(', ')}.`,
    });
  }
  return toSecretView(ctx, row);
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** PUT /api/secrets/{key}/: replaces type, value and tags (and the key, when the body renames it). */
export async function replaceSecret(ctx: RequestContext, key: string, target: TierInput, body: unknown): Promise<SecretView> {
  const { tier, row } = await requireExact(ctx, key, target);
  const input = parseInput(body, 'secret_type', key);
  const { type, sealed } = await prepareValue(ctx, tier, input);
  const who = actor(ctx);
  await write(ctx, input.key, tier, async (tx) => {
    const tags = await resolveTags(ctx, tx, input.tags);
    await secretRepository.replace(tx, row.id, { key: input.key, typeId: type.id, sealed, userId: who.userId });
    await secretRepository.setTags(
      tx,
      row.id,
      tags.map((t) => t.id),
    );
    // Attribute changes only; the value is always replaced and recorded as such, never shown.
    const newSlugs = tags.map((t) => t.slug);
    const changes: Record<string, unknown> = { value_replaced: true };
    if (input.key !== row.key) changes.key = { from: row.key, to: input.key };
    if (type.id !== row.typeId) changes.secret_type = { from: row.typeSlug, to: type.slug };
    if (!sameSet(newSlugs, row.tagSlugs)) {
      changes.tags = {
        added: newSlugs.filter((s) => !row.tagSlugs.includes(s)).sort(),
        removed: row.tagSlugs.filter((s) => !newSlugs.includes(s)).sort(),
      };
    }
    await recordHistory(tx, { siteId: row.siteId, ...tier, key: input.key, secretType: type.name, action: '~', ...who, changes });
  });
  return toSecretView(ctx, await reload(ctx, tier, input.key));
}

/** DELETE /api/secrets/{key}/ (`?app=` for the app tier). */
export async function deleteSecret(ctx: RequestContext, key: string, target: TierInput): Promise<{ message: string; detail: string }> {
  const { tier, row } = await requireExact(ctx, key, target);
  const who = actor(ctx);
  await write(ctx, key, tier, async (tx) => {
    await secretRepository.remove(tx, row.id);
    await recordHistory(tx, {
      siteId: row.siteId,
      ...tier,
      key,
      secretType: row.typeName,
      action: '-',
      ...who,
      changes: { secret_type: row.typeSlug, tags: row.tagSlugs },
    });
  });
  const where = tier.appSlug ? `app "${tier.appSlug}"` : 'site';
  return { message: 'Secret deleted.', detail: `Secret "${key}" was deleted from the ${where} tier.` };
}

export { SITE_TIER };
