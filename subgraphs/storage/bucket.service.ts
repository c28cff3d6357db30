// Buckets of an app (seed 2 "Storage: buckets", DECISIONS §8): create, list, read, update,
// delete. A bucket's objects, metadata and files go with it: rows in the deleting transaction,
// files in the background through the cleanup queue (nothing is left behind).
import type { RequestContext } from '../core/context.js';
import { withTransaction } from '../core/db.js';
import { isUniqueViolation, mapDbError } from '../core/db-errors.js';
import { errors } from '../core/errors.js';
import { pageRequest, type ListInput } from '../core/listing.js';
import { slugify } from '../core/slug.js';
import { findSiteApp, type AppRow } from '../tenancy/tenancy.api.js';
import { cleanupInBackground } from './cleanup.js';
import { MIME_PATTERN } from './mime.js';
import { providerFor } from './providers/registry.js';
import type { ProviderName, StorageProvider } from './providers/provider.js';
import { isOperator, mayAccess, refusal, requireAccess, seesSite, userIdOf, type StorageOp } from './storage-access.js';
import { storageErrors } from './storage-errors.js';
import { storageRepository as repo, type BucketPatch, type BucketRow } from './storage.repository.js';

export const DEFAULT_FILE_SIZE_LIMIT = 50 * 1024 * 1024;
/** The largest `file_size_limit` a bucket may declare (5 GiB). */
export const MAX_FILE_SIZE_LIMIT = 5 * 1024 * 1024 * 1024;
const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export interface BucketView {
  id: number;
  name: string;
  slug: string;
  description: string;
  provider: ProviderName;
  visibility: 'private' | 'public';
  fileSizeLimit: number;
  allowedMimeTypes: string[];
  objectCount: number;
  totalSize: number;
  createdAt: Date;
}

export interface CreateBucketInput {
  name?: unknown;
  slug?: unknown;
  description?: unknown;
  file_size_limit?: unknown;
  allowed_mime_types?: unknown;
  visibility?: unknown;
  provider?: unknown;
}

export type UpdateBucketInput = Omit<CreateBucketInput, 'slug' | 'provider'>;

/** A bucket with what every object operation needs. */
export interface BucketTarget {
  app: AppRow;
  bucket: BucketRow;
  provider: StorageProvider;
}

/** The bucket of `/apps/{app}/storage/buckets/{bucket}/` (404 unless it exists in this site's app). */
export async function findBucket(ctx: RequestContext, appRef: string, bucketSlug: string): Promise<{ app: AppRow; bucket: BucketRow }> {
  const app = await findSiteApp(ctx, appRef);
  const bucket = await repo.findBucket(ctx.platform.pool, app.siteId, app.id, bucketSlug);
  if (!bucket) throw storageErrors.bucketNotFound();
  return { app, bucket };
}

/** The bucket and its provider, after checking that the caller may do `op` in it. */
export async function bucketFor(ctx: RequestContext, appRef: string, bucketSlug: string, op: StorageOp): Promise<BucketTarget> {
  const { app, bucket } = await findBucket(ctx, appRef, bucketSlug);
  await requireAccess(ctx, bucket, op);
  const provider = providerFor(ctx.platform, bucket.provider);
  if (!provider) throw storageErrors.providerNotConfigured();
  return { app, bucket, provider };
}

function text(v: unknown, field: string, max: number, fieldErrors: Record<string, string[]>, required = false): string | undefined {
  if (v === undefined || v === null) {
    if (required) fieldErrors[field] = ['This field is required.'];
    return undefined;
  }
  if (typeof v !== 'string') {
    fieldErrors[field] = ['must be a string'];
    return undefined;
  }
  const t = v.trim();
  if (required && t === '') fieldErrors[field] = ['may not be blank'];
  else if (t.length > max) fieldErrors[field] = [`must be at most ${max} characters`];
  return t;
}

function parseFields(input: CreateBucketInput, creating: boolean): BucketPatch & { slug?: string; provider?: ProviderName } {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw storageErrors.validation({ non_field_errors: ['expected a JSON object'] });
  const fe: Record<string, string[]> = {};
  const out: BucketPatch & { slug?: string; provider?: ProviderName } = {};
  out.name = text(input.name, 'name', 100, fe, creating);
  out.description = text(input.description, 'description', 1000, fe);
  if (creating) {
    const slug = text(input.slug, 'slug', 63, fe);
    if (slug !== undefined && slug !== '' && !SLUG_RE.test(slug)) fe.slug = ['lower-case letters, digits and hyphens, at most 63'];
    out.slug = slug || (out.name ? slugify(out.name, 'bucket').slice(0, 63).replace(/-+$/, '') : undefined);
    const provider = input.provider ?? 'object_store';
    if (provider !== 'object_store' && provider !== 'document_library') fe.provider = ['must be object_store or document_library'];
    else out.provider = provider;
  }
  if (input.file_size_limit !== undefined) {
    const n = input.file_size_limit;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_FILE_SIZE_LIMIT) {
      fe.file_size_limit = [`must be a whole number of bytes between 1 and ${MAX_FILE_SIZE_LIMIT}`];
    } else out.fileSizeLimit = n;
  } else if (creating) out.fileSizeLimit = DEFAULT_FILE_SIZE_LIMIT;
  if (input.allowed_mime_types !== undefined && input.allowed_mime_types !== null) {
    const list = input.allowed_mime_types;
    if (!Array.isArray(list) || list.length > 100 || list.some((m) => typeof m !== 'string' || m.length > 255 || !MIME_PATTERN.test(m))) {
      fe.allowed_mime_types = ['must be a list (at most 100) of MIME types such as "image/png" or "image/*"'];
    } else out.allowedMimeTypes = [...new Set((list as string[]).map((m) => m.toLowerCase()))];
  } else if (creating || input.allowed_mime_types === null) out.allowedMimeTypes = [];
  if (input.visibility !== undefined) {
    if (input.visibility !== 'private' && input.visibility !== 'public') fe.visibility = ['must be private or public'];
    else out.visibility = input.visibility;
  } else if (creating) out.visibility = 'private';
  if (Object.keys(fe).length) throw storageErrors.validation(fe);
  return out;
}

export async function createBucket(ctx: RequestContext, appRef: string, input: CreateBucketInput): Promise<BucketRow> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const app = await findSiteApp(ctx, appRef);
  const f = parseFields(input, true);
  const siteBucket = { siteId: app.siteId, appId: app.id, visibility: 'private' as const, createdById: null };
  if (!(await mayAccess(ctx, siteBucket, 'create'))) throw await refusal(ctx, app.siteId);
  if (f.provider === 'document_library' && !providerFor(ctx.platform, 'document_library')) throw storageErrors.providerNotConfigured();
  if (!f.slug) throw storageErrors.validation({ slug: ['could not be derived from the name; give one'] });
  try {
    return await repo.insertBucket(ctx.platform.pool, {
      siteId: app.siteId,
      appId: app.id,
      name: f.name as string,
      slug: f.slug,
      description: f.description ?? '',
      provider: f.provider as ProviderName,
      visibility: f.visibility as 'private' | 'public',
      fileSizeLimit: f.fileSizeLimit as number,
      allowedMimeTypes: f.allowedMimeTypes ?? [],
      createdById: userIdOf(ctx),
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw storageErrors.bucketExists(f.slug);
    throw mapDbError(e);
  }
}

/**
 * Buckets of an app the caller may see: all of them with `storage:read` (or as staff or the
 * app's API key); otherwise the public ones and the caller's own.
 */
export async function listBuckets(ctx: RequestContext, appRef: string, input: ListInput) {
  const app = await findSiteApp(ctx, appRef);
  // Only those who can see the site list its buckets (public ones stay readable by path).
  if (!(await seesSite(ctx, app.siteId))) throw storageErrors.bucketNotFound();
  const page = pageRequest(input);
  const all = await mayAccess(ctx, { siteId: app.siteId, appId: app.id, visibility: 'private', createdById: null }, 'read');
  const { rows, count } = await repo.listBuckets(ctx.platform.pool, app.siteId, app.id, all ? null : { userId: userIdOf(ctx) }, page);
  return { page, count, items: rows };
}

export async function getBucket(ctx: RequestContext, appRef: string, slug: string): Promise<BucketRow> {
  const { bucket } = await findBucket(ctx, appRef, slug);
  await requireAccess(ctx, bucket, 'read');
  return bucket;
}

export async function updateBucket(ctx: RequestContext, appRef: string, slug: string, input: UpdateBucketInput): Promise<BucketRow> {
  const { bucket } = await findBucket(ctx, appRef, slug);
  if (!(await mayManage(ctx, bucket, 'update'))) throw await refusal(ctx, bucket.siteId);
  const f = parseFields(input, false);
  return repo.updateBucket(ctx.platform.pool, bucket.id, f);
}

/**
 * Deletes the bucket with its objects and metadata in one transaction and queues its files,
 * which are removed after the response (a large bucket takes a while); 200.
 */
export async function deleteBucket(ctx: RequestContext, appRef: string, slug: string): Promise<BucketRow> {
  const { bucket } = await findBucket(ctx, appRef, slug);
  if (!(await mayManage(ctx, bucket, 'delete'))) throw await refusal(ctx, bucket.siteId);
  const cleanupId = await withTransaction(ctx.platform.pool, async (tx) => {
    await repo.deleteBucket(tx, bucket.id);
    return repo.enqueueCleanup(tx, bucket.provider, `${bucket.uuid}/`, true);
  }).catch((e) => {
    throw mapDbError(e);
  });
  cleanupInBackground(ctx.platform, { id: cleanupId, provider: bucket.provider, key: `${bucket.uuid}/`, isPrefix: true });
  return bucket;
}

/** Changing or deleting a bucket itself: never through public write access, only owner-level access. */
async function mayManage(ctx: RequestContext, bucket: BucketRow, op: 'update' | 'delete'): Promise<boolean> {
  if (ctx.principal.kind === 'anonymous') return false;
  if (isOperator(ctx) || ctx.principal.kind === 'api_key') return mayAccess(ctx, bucket, op);
  return mayAccess(ctx, { ...bucket, visibility: 'private' }, op);
}

export const toBucketView = (b: BucketRow): BucketView => ({
  id: b.id,
  name: b.name,
  slug: b.slug,
  description: b.description,
  provider: b.provider,
  visibility: b.visibility,
  fileSizeLimit: b.fileSizeLimit,
  allowedMimeTypes: b.allowedMimeTypes,
  objectCount: b.objectCount,
  totalSize: b.totalSize,
  createdAt: b.createdAt,
});
