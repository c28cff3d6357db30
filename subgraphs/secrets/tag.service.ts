// Secret tags of a site (seed 2 "Tag"). Names are unique per site and limited to
// `^[a-zA-Z0-9_-]+$`; the slug is generated once and stays when the tag is renamed, so
// links and filters (`?tags=`) keep working. resolveTags is the secrets module's lookup.
import type { RequestContext } from '../core/context.js';
import { isUniqueViolation } from '../core/db.js';
import { errors, type FieldErrors } from '../core/errors.js';
import { orderBy, pageRequest, searchTerm, type ListInput, type ListResult } from '../core/listing.js';
import { slugify, withUniqueSlug } from '../core/slug.js';
import type { AnyDb } from './secret-type.repository.js';
import { secretsSite } from './secret-type.service.js';
import * as repo from './tag.repository.js';

export type { TagRow } from './tag.repository.js';

export const TAG_NAME = /^[a-zA-Z0-9_-]+$/;
const COLOR = /^#[0-9a-fA-F]{6}$/;
export const DEFAULT_COLOR = '#6B7280';

/**
 * The tags of this host's site named by `namesOrSlugs` (each a name or a slug), without
 * repeats; 400 naming the unknown ones. `tx` is the caller's transaction (Prisma or pg).
 */
export async function resolveTags(
  ctx: RequestContext,
  tx: AnyDb,
  namesOrSlugs: string[],
): Promise<{ id: number; name: string; slug: string }[]> {
  if (!ctx.site) throw errors.tenantRequired();
  const refs = [...new Set(namesOrSlugs.map((s) => String(s).trim()).filter(Boolean))];
  if (refs.length === 0) return [];
  const rows = await repo.findByRefs(tx, ctx.site.id, refs);
  const unknown = refs.filter((r) => !rows.some((t) => t.name === r || t.slug === r));
  if (unknown.length) throw errors.field('tags', `Unknown tag${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`);
  return rows.map((r) => ({ id: r.id, name: r.name, slug: r.slug }));
}

const ORDERING = { name: 'name', slug: 'slug', created_at: 'created_at', modified_at: 'modified_at' };

export async function listTags(ctx: RequestContext, input: ListInput): Promise<ListResult<repo.TagRow>> {
  const site = await secretsSite(ctx, 'secrets:read');
  const page = pageRequest(input);
  const order = orderBy(input.ordering, ORDERING, 'name')
    .map((o) => `${o.column} ${o.desc ? 'DESC' : 'ASC'}`)
    .join(', ');
  const { rows, count } = await repo.listTags(ctx.platform.pool, site.id, searchTerm(input.search), order, page.pageSize, page.offset);
  return { page, count, items: rows };
}

async function findTag(ctx: RequestContext, siteId: number, slug: string): Promise<repo.TagRow> {
  const row = await repo.findBySlug(ctx.platform.pool, siteId, slug);
  if (!row) throw errors.notFound('Tag not found.');
  return row;
}

export async function getTag(ctx: RequestContext, slug: string): Promise<repo.TagRow> {
  const site = await secretsSite(ctx, 'secrets:read');
  return findTag(ctx, site.id, slug);
}

interface TagInput {
  name?: string;
  description?: string;
  color?: string;
}

/** `partial`: PATCH; otherwise name is required (POST, PUT). */
function parseTag(body: unknown, partial: boolean): TagInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw errors.invalid('Invalid input.', { non_field_errors: ['Expected a JSON object.'] });
  const b = body as Record<string, unknown>;
  const errs: FieldErrors = {};
  const out: TagInput = {};
  if (b.name === undefined || b.name === null) {
    if (!partial) errs.name = ['This field is required.'];
  } else if (typeof b.name !== 'string' || !TAG_NAME.test(b.name)) {
    errs.name = ['Use only letters, digits, "_" and "-" (pattern ^[a-zA-Z0-9_-]+$).'];
  } else if (b.name.length > 100) errs.name = ['Use at most 100 characters.'];
  else out.name = b.name;
  if (b.description !== undefined && b.description !== null) {
    if (typeof b.description !== 'string') errs.description = ['Must be of type string.'];
    else if (b.description.length > 2000) errs.description = ['Use at most 2000 characters.'];
    else out.description = b.description;
  }
  if (b.color !== undefined && b.color !== null) {
    if (typeof b.color !== 'string' || !COLOR.test(b.color)) errs.color = ['Must be a hex colour such as #6B7280.'];
    else out.color = b.color.toUpperCase();
  }
  if (b.slug !== undefined) errs.slug = ['This field is read-only.'];
  if (Object.keys(errs).length) throw errors.invalid('Invalid input.', errs);
  return out;
}

const duplicate = (name: string) => errors.field('name', `A tag named "${name}" already exists.`);

export async function createTag(ctx: RequestContext, body: unknown): Promise<repo.TagRow> {
  const site = await secretsSite(ctx, 'secrets:write');
  const input = parseTag(body, false);
  const pool = ctx.platform.pool;
  if (await repo.nameTaken(pool, site.id, input.name!)) throw duplicate(input.name!);
  try {
    return await withUniqueSlug({
      base: slugify(input.name!, 'tag'),
      taken: (base) => repo.takenSlugs(pool, site.id, base),
      isSlugConflict: (e) => isUniqueViolation(e) && (e as { constraint?: string }).constraint !== 'secret_tags_site_id_name_key',
      insert: (slug) =>
        repo.insertTag(pool, {
          siteId: site.id,
          slug,
          name: input.name!,
          description: input.description ?? '',
          color: input.color ?? DEFAULT_COLOR,
        }),
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicate(input.name!);
    throw e;
  }
}

export async function updateTag(ctx: RequestContext, slug: string, body: unknown, partial: boolean): Promise<repo.TagRow> {
  const site = await secretsSite(ctx, 'secrets:write');
  const row = await findTag(ctx, site.id, slug);
  const input = parseTag(body, partial);
  // PUT replaces: omitted optional fields return to their defaults.
  if (!partial) {
    input.description ??= '';
    input.color ??= DEFAULT_COLOR;
  }
  if (input.name !== undefined && (await repo.nameTaken(ctx.platform.pool, site.id, input.name, row.id))) throw duplicate(input.name);
  try {
    return await repo.updateTag(ctx.platform.pool, row.id, input);
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicate(input.name ?? row.name);
    throw e;
  }
}

export async function deleteTag(ctx: RequestContext, slug: string): Promise<{ message: string; detail: string }> {
  const site = await secretsSite(ctx, 'secrets:write');
  const row = await findTag(ctx, site.id, slug);
  await repo.deleteTag(ctx.platform.pool, row.id);
  return { message: 'Tag deleted.', detail: `Tag "${row.name}" was deleted and removed from every secret.` };
}
