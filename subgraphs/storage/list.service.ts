// Object lists (seed 2 "Object list parameters", "Legacy search"), batch delete and the
// document-library view/edit links.
import type { RequestContext } from '../core/context.js';
import { errors, isAppError } from '../core/errors.js';
import { pageRequest, type ListInput, type Query } from '../core/listing.js';
import { bucketFor, findBucket, type BucketTarget } from './bucket.service.js';
import { isDocEditable } from './mime.js';
import { buildObjectFilter, parseOrderingParam } from './object-filters.js';
import { parsePath } from './object-input.js';
import { deleteObjectRow, findObject } from './object.service.js';
import { ProviderFailure, ProviderNotFound, type LinkMode } from './providers/provider.js';
import { providerFor } from './providers/registry.js';
import { isOperator, mayAccess, requireAccess, userIdOf } from './storage-access.js';
import { storageErrors } from './storage-errors.js';
import { storageRepository as repo, type ObjectRow } from './storage.repository.js';

export const LIST_DEFAULTS = { pageSize: 10, max: 100 };

/** Readers without private access to a public bucket see its objects that are not private. */
async function listTarget(ctx: RequestContext, appRef: string, bucketSlug: string) {
  const { app, bucket } = await findBucket(ctx, appRef, bucketSlug);
  await requireAccess(ctx, bucket, 'read');
  const full = await mayAccess(ctx, bucket, 'read', 'private');
  return { app, bucket, publicOnly: !full };
}

/** A page of a bucket's objects: `input` the page and ordering, `filters` the object filters (REST parameter names). */
export async function listObjects(ctx: RequestContext, appRef: string, bucketSlug: string, input: ListInput, filters: Query, full = false) {
  const { app, bucket, publicOnly } = await listTarget(ctx, appRef, bucketSlug);
  const page = pageRequest(input, LIST_DEFAULTS);
  const where = buildObjectFilter(filters, { siteId: bucket.siteId, bucketId: bucket.id, userId: userIdOf(ctx), publicOnly });
  const orderBy = parseOrderingParam(input.ordering ?? undefined);
  const { rows, count } = await repo.listObjects(ctx.platform.pool, where, orderBy, page, full);
  return { app, bucket, page, count, rows };
}

export interface LegacySearchInput {
  prefix?: unknown;
  search?: unknown;
  sortBy?: { column?: unknown; order?: unknown };
  limit?: unknown;
  offset?: unknown;
}

const SORT_COLUMNS = new Set(['created_at', 'updated_at', 'size', 'filename']);

/** POST objects/search/: `{prefix, search, sortBy: {column, order}, limit (≤1000), offset}`. */
export async function legacySearch(ctx: RequestContext, appRef: string, bucketSlug: string, input: LegacySearchInput) {
  const body = input && typeof input === 'object' && !Array.isArray(input) ? input : {};
  const fe: Record<string, string[]> = {};
  const str = (v: unknown, name: string) => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string' || v.length > 1024) fe[name] = ['must be a string of at most 1024 characters'];
    return typeof v === 'string' ? v : undefined;
  };
  const int = (v: unknown, name: string, fallback: number, min: number, max: number) => {
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      fe[name] = [`must be a whole number between ${min} and ${max}`];
    return typeof v === 'number' ? v : fallback;
  };
  const prefix = str(body.prefix, 'prefix');
  const search = str(body.search, 'search');
  const limit = int(body.limit, 'limit', 100, 1, 1000);
  const offset = int(body.offset, 'offset', 0, 0, 10_000_000);
  const sortBy = body.sortBy && typeof body.sortBy === 'object' ? body.sortBy : {};
  const column = sortBy.column ?? 'created_at';
  if (typeof column !== 'string' || !SORT_COLUMNS.has(column)) fe['sortBy.column'] = [`must be one of ${[...SORT_COLUMNS].join(', ')}`];
  const order = sortBy.order ?? 'asc';
  if (order !== 'asc' && order !== 'desc') fe['sortBy.order'] = ['must be asc or desc'];
  if (Object.keys(fe).length) throw storageErrors.validation(fe);
  const { app, bucket, publicOnly } = await listTarget(ctx, appRef, bucketSlug);
  const query: Query = {};
  if (prefix) query.prefix = prefix;
  if (search) query.filename__icontains = search;
  const where = buildObjectFilter(query, { siteId: bucket.siteId, bucketId: bucket.id, userId: userIdOf(ctx), publicOnly });
  const orderBy = parseOrderingParam(`${order === 'desc' ? '-' : ''}${column as string}`);
  const { rows, count } = await repo.listObjects(ctx.platform.pool, where, orderBy, { pageSize: limit, offset }, false);
  return { app, bucket, rows, count };
}

/** How many of the paths were deleted, and why each other one was not. */
export interface BatchDeleteResult {
  deleted: number;
  failed: { path: string; error: string }[];
}

/** `{paths: [...]}`, 1 to 100, duplicates removed; objects the caller may not delete fail alone. */
export async function batchDelete(
  ctx: RequestContext,
  appRef: string,
  bucketSlug: string,
  input: { paths?: unknown },
): Promise<BatchDeleteResult> {
  const paths = input && typeof input === 'object' ? input.paths : undefined;
  if (!Array.isArray(paths) || paths.length === 0) throw storageErrors.batchField('paths', 'Give between 1 and 100 paths.');
  if (paths.length > 100) throw storageErrors.batchField('paths', 'At most 100 paths per request.');
  if (paths.some((p) => typeof p !== 'string')) throw storageErrors.batchField('paths', 'Every path must be a string.');
  const unique = [...new Set(paths as string[])];
  const t = await bucketFor(ctx, appRef, bucketSlug, 'read').catch(async (e) => {
    // A public bucket's reader may still delete objects they have access to: check per object.
    throw e;
  });
  const failed: { path: string; error: string }[] = [];
  let deleted = 0;
  for (const raw of unique) {
    try {
      const path = parsePath(raw, 'paths');
      const object = await repo.findObjectByPath(ctx.platform.pool, t.bucket.siteId, t.bucket.id, path);
      if (!object) throw storageErrors.objectNotFound();
      if (!(await mayAccess(ctx, t.bucket, 'delete', object.visibility))) throw errors.permissionDenied();
      await deleteObjectRow(ctx, t, object);
      deleted++;
    } catch (e) {
      if (!isAppError(e)) throw e;
      failed.push({ path: raw, error: e.message });
    }
  }
  return { deleted, failed };
}

/**
 * A browser URL to view or edit a document-library object (seed 2 "Browser view and edit").
 * Object stores answer 400 `provider_operation_not_supported`.
 */
export async function viewEditLink(ctx: RequestContext, appRef: string, bucketSlug: string, ref: string, mode: LinkMode) {
  let t: { bucket: BucketTarget['bucket']; app: BucketTarget['app'] };
  let object: ObjectRow;
  try {
    t = await findBucket(ctx, appRef, bucketSlug);
    object = await findObject(ctx, t, ref);
  } catch (e) {
    if (isAppError(e) && e.status === 404) throw storageErrors.viewEdit(404, 'NOT_FOUND', e.message);
    throw e;
  }
  if (t.bucket.provider !== 'document_library') {
    throw storageErrors.viewEdit(
      400,
      'VALIDATION_ERROR',
      `${mode === 'view' ? 'View' : 'Edit'} is only available on document-library buckets.`,
      'provider_operation_not_supported',
    );
  }
  const visibility = object.visibility ?? t.bucket.visibility;
  if (mode === 'edit' && ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  await requireAccess(ctx, t.bucket, mode === 'view' ? 'read' : 'update', object.visibility);
  if (mode === 'edit' && !isDocEditable(object.filename)) {
    throw storageErrors.viewEdit(
      400,
      'VALIDATION_ERROR',
      'Only word-processing, spreadsheet and presentation files can be edited.',
      'non_doc_edit_rejected',
    );
  }
  const provider = providerFor(ctx.platform, 'document_library');
  if (!provider?.link) throw storageErrors.providerNotConfigured();
  const anonymous = mode === 'view' && visibility === 'public' && ctx.principal.kind === 'anonymous';
  const email = ctx.principal.kind === 'user' ? ctx.principal.row?.email : undefined;
  if (!anonymous && !email && !isOperator(ctx)) {
    if (ctx.principal.kind === 'api_key' || !email) {
      // A per-user grant needs the caller's e-mail; API keys have none: share read-only anonymously for public objects.
      if (mode === 'view' && visibility === 'public')
        return { url: await linkOrFail(provider.link.bind(provider), object, { mode, anonymous: true }), mode };
    }
  }
  const url = await linkOrFail(provider.link.bind(provider), object, { mode, anonymous, email });
  return { url, mode };
}

async function linkOrFail(
  link: NonNullable<BucketTarget['provider']['link']>,
  object: ObjectRow,
  req: Parameters<NonNullable<BucketTarget['provider']['link']>>[1],
): Promise<string> {
  try {
    return await link(object.storageKey, req);
  } catch (e) {
    if (e instanceof ProviderNotFound) throw storageErrors.viewEdit(404, 'NOT_FOUND', 'The document is missing in the library.');
    const code = e instanceof ProviderFailure ? e.providerCode : undefined;
    throw storageErrors.viewEdit(502, 'BAD_REQUEST', 'The document library could not be reached.', code);
  }
}
