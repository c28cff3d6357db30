// Objects of a bucket (seed 2 "Storage: objects"): streamed uploads with the bucket's limits
// enforced mid-stream, downloads with ranges and validators, metadata reads and updates, copy,
// move and delete.
//
// Ordering (docs/storage.md "Crash safety"): new content is written to the provider under a new
// key BEFORE the transaction that points a row at it; content a row stops pointing at is queued
// in storage_cleanup IN that transaction and deleted AFTER it commits. So a row never points at
// missing content, and content without a row is either queued or swept by the cleanup pass.
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import type { RequestContext } from '../core/context.js';
import { withTransaction } from '../core/db.js';
import { isUniqueViolation, mapDbError } from '../core/db-errors.js';
import { AppError, isAppError } from '../core/errors.js';
import { bucketFor, findBucket, type BucketTarget } from './bucket.service.js';
import { providerFor } from './providers/registry.js';
import { runCleanup } from './cleanup.js';
import { extensionOf, isDocEditable } from './mime.js';
import { filenameOf, parseMetadata, parsePath } from './object-input.js';
import { ProviderNotFound, type ByteRange } from './providers/provider.js';
import { requireAccess, userIdOf } from './storage-access.js';
import { storageErrors } from './storage-errors.js';
import { storageRepository as repo, type BucketRow, type ObjectRow } from './storage.repository.js';
import { UploadGuard } from './upload-guard.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface StoredContent {
  storageKey: string;
  size: number;
  mimetype: string;
  etag: string;
}

/** An object as the services answer it; REST and GraphQL render their own views (storage-views.ts, storage.resolvers.ts). */
export interface StorageObject {
  id: number;
  uuid: string;
  bucketId: number;
  bucketSlug: string;
  bucketName: string;
  filename: string;
  filePath: string;
  /** The object's REST URL on the caller's host. */
  url: string;
  size: number;
  mimetype: string;
  metadata: Record<string, unknown>;
  visibility: 'private' | 'public' | null;
  isDocEditable: boolean;
  createdAt: Date;
  updatedAt: Date;
  createdById: number | null;
  modifiedById: number | null;
}

export function objectUrl(ctx: RequestContext, t: Pick<BucketTarget, 'app' | 'bucket'>, uuid: string): string {
  return `${ctx.baseUrl}/api/apps/${encodeURIComponent(t.app.slug)}/storage/buckets/${encodeURIComponent(t.bucket.slug)}/objects/${uuid}/`;
}

export function toStorageObject(ctx: RequestContext, t: Pick<BucketTarget, 'app' | 'bucket'>, o: ObjectRow): StorageObject {
  return {
    id: o.id,
    uuid: o.uuid,
    bucketId: t.bucket.id,
    bucketSlug: t.bucket.slug,
    bucketName: t.bucket.name,
    filename: o.filename,
    filePath: o.filePath,
    url: objectUrl(ctx, t, o.uuid),
    size: o.size,
    mimetype: o.mimetype,
    metadata: o.metadata,
    visibility: o.visibility,
    isDocEditable: t.bucket.provider === 'document_library' && isDocEditable(o.filename),
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    createdById: o.createdById,
    modifiedById: o.modifiedById,
  };
}

/** A new provider key in the bucket's prefix: `<bucket uuid>/<ms time hex><random hex>[.ext]`. */
export function newKey(bucket: Pick<BucketRow, 'uuid'>, filename: string): string {
  const ext = extensionOf(filename);
  return `${bucket.uuid}/${Date.now().toString(16).padStart(12, '0')}${crypto.randomBytes(10).toString('hex')}${ext ? '.' + ext : ''}`;
}

function providerError(what: string, e: unknown): AppError {
  if (isAppError(e)) return e;
  return storageErrors.providerFailure(what, (e as Error)?.message?.slice(0, 300) ?? 'unknown error');
}

/**
 * Streams `body` through the bucket's guard into the provider under a new key. Rejects with the
 * guard's 400 (too large, type not allowed, empty) or a provider failure; nothing is stored then.
 */
export async function storeContent(
  t: BucketTarget,
  body: Readable,
  filename: string,
  declaredType: string | undefined,
): Promise<StoredContent> {
  const guard = new UploadGuard({ limit: t.bucket.fileSizeLimit, allowed: t.bucket.allowedMimeTypes, declaredType, filename });
  const key = newKey(t.bucket, filename);
  const onSourceError = (e: Error) => guard.destroy(e);
  const onAborted = () => guard.destroy(new Error('The client closed the connection during the upload.'));
  body.once('error', onSourceError);
  body.once('aborted', onAborted);
  // On a guard failure stop reading the source without destroying it: the request's socket must
  // stay open for the 400 answer (the route then closes the connection).
  guard.once('error', () => {
    body.unpipe(guard);
    body.pause();
  });
  body.pipe(guard);
  try {
    // The head is held back until sniffed, so the type is known before any byte is stored.
    await t.provider.put(key, guard, await guard.decidedType);
  } catch (e) {
    await t.provider.delete(key).catch(() => undefined);
    throw providerError('upload', guard.errored ?? e);
  } finally {
    body.off('error', onSourceError);
    body.off('aborted', onAborted);
  }
  if (guard.errored) {
    await t.provider.delete(key).catch(() => undefined);
    throw providerError('upload', guard.errored);
  }
  let etag: string;
  try {
    etag = await guard.etag();
  } catch (e) {
    await t.provider.delete(key).catch(() => undefined);
    throw providerError('upload', e);
  }
  return { storageKey: key, size: guard.size, mimetype: guard.mimetype, etag };
}

/** Removes stored content whose row was never written (a failed transaction). */
async function discard(t: BucketTarget, key: string): Promise<void> {
  await t.provider.delete(key).catch(() => undefined);
}

export interface UpsertInput {
  path: string;
  metadata: Record<string, unknown>;
  content: StoredContent;
}

/**
 * Points the row at `path` to the stored content: a new object (created: true) or the existing
 * one with content and metadata replaced and the same uuid. Counters move in the same transaction.
 */
export async function upsertObject(
  ctx: RequestContext,
  t: BucketTarget,
  input: UpsertInput,
): Promise<{ object: ObjectRow; created: boolean }> {
  const userId = userIdOf(ctx);
  const filename = filenameOf(input.path);
  let replaced: { id: number; key: string } | null = null;
  try {
    const out = await withTransaction(ctx.platform.pool, async (tx) => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const existing = await repo.findObjectByPath(tx, t.bucket.siteId, t.bucket.id, input.path, true);
        if (existing) {
          // Replacing someone else's object needs update access (creating needs create access).
          await requireAccess(ctx, t.bucket, 'update', existing.visibility);
          const object = await repo.replaceContent(tx, existing.id, { ...input.content, filename, metadata: input.metadata, userId });
          await repo.addToCounters(tx, t.bucket.id, 0, input.content.size - existing.size);
          replaced = { id: await repo.enqueueCleanup(tx, t.bucket.provider, existing.storageKey), key: existing.storageKey };
          return { object, created: false };
        }
        const object = await repo.insertObject(tx, {
          siteId: t.bucket.siteId,
          bucketId: t.bucket.id,
          filePath: input.path,
          filename,
          metadata: input.metadata,
          userId,
          ...input.content,
        });
        if (object) {
          await repo.addToCounters(tx, t.bucket.id, 1, input.content.size);
          return { object, created: true };
        }
      }
      throw storageErrors.destinationExists(input.path);
    });
    if (replaced) await finishCleanup(ctx, t, replaced);
    return out;
  } catch (e) {
    await discard(t, input.content.storageKey);
    throw isAppError(e) ? e : mapDbError(e);
  }
}

async function finishCleanup(ctx: RequestContext, t: BucketTarget, item: { id: number; key: string }): Promise<void> {
  await runCleanup(ctx.platform, { id: item.id, provider: t.bucket.provider, key: item.key, isPrefix: false }).catch(() => undefined);
}

/** An object of the bucket by uuid or by path (404 when neither matches). */
export async function findObject(ctx: RequestContext, t: Pick<BucketTarget, 'bucket'>, ref: string): Promise<ObjectRow> {
  const trimmed = ref.replace(/\/+$/, '');
  const pool = ctx.platform.pool;
  if (UUID_RE.test(trimmed)) {
    const byUuid = await repo.findObjectByUuid(pool, t.bucket.siteId, t.bucket.id, trimmed);
    if (byUuid) return byUuid;
  }
  if (trimmed === '') throw storageErrors.objectNotFound();
  const byPath = await repo.findObjectByPath(pool, t.bucket.siteId, t.bucket.id, trimmed.replace(/^\/+/, ''));
  if (!byPath) throw storageErrors.objectNotFound();
  return byPath;
}

/** The bucket for a read of one object: public objects of private buckets are readable too. */
export async function readTarget(ctx: RequestContext, appRef: string, bucketSlug: string, ref: string) {
  const { app, bucket } = await findBucket(ctx, appRef, bucketSlug);
  const object = await findObject(ctx, { bucket }, ref);
  await requireAccess(ctx, bucket, 'read', object.visibility);
  const provider = providerFor(ctx.platform, bucket.provider);
  if (!provider) throw storageErrors.providerNotConfigured();
  return { t: { app, bucket, provider } as BucketTarget, object };
}

// ---- download -------------------------------------------------------------------------------

export interface DownloadResult {
  status: 200 | 206 | 304;
  headers: Record<string, string>;
  body?: Readable;
}

/** RFC 6266 `inline` disposition: an ASCII fallback and the UTF-8 `filename*`. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  return `inline; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** One `bytes=` range of a representation of `size` bytes; null: serve the whole (absent or multiple ranges). */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

export async function download(
  ctx: RequestContext,
  t: BucketTarget,
  object: ObjectRow,
  headers: Record<string, string | string[] | undefined>,
): Promise<DownloadResult> {
  const etag = `"${object.etag}"`;
  const base: Record<string, string> = {
    ETag: etag,
    'Last-Modified': object.updatedAt.toUTCString(),
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-cache',
  };
  const inm = headers['if-none-match'];
  if (typeof inm === 'string' && inm.split(',').some((v) => v.trim() === etag || v.trim() === `W/${etag}` || v.trim() === '*')) {
    return { status: 304, headers: base };
  }
  const ifRange = headers['if-range'];
  const rangeHeader = typeof headers.range === 'string' && (ifRange === undefined || ifRange === etag) ? headers.range : undefined;
  const range = parseRange(rangeHeader, object.size);
  if (range === 'unsatisfiable') throw storageErrors.rangeNotSatisfiable(object.size);
  let body: Readable;
  try {
    body = await t.provider.get(object.storageKey, range ?? undefined);
  } catch (e) {
    if (e instanceof ProviderNotFound) throw storageErrors.fileNotFound('The object has no stored content.');
    throw providerError('download', e);
  }
  const out: Record<string, string> = {
    ...base,
    'Content-Type': object.mimetype,
    'Content-Disposition': contentDisposition(object.filename),
    'X-Content-Type-Options': 'nosniff',
  };
  if (range) {
    out['Content-Range'] = `bytes ${range.start}-${range.end}/${object.size}`;
    out['Content-Length'] = String(range.end - range.start + 1);
    return { status: 206, headers: out, body };
  }
  out['Content-Length'] = String(object.size);
  return { status: 200, headers: out, body };
}

// ---- metadata update, copy, move, delete ------------------------------------------------------

export interface PatchInput {
  filename?: unknown;
  path?: unknown;
  file?: unknown;
  metadata?: unknown;
  visibility?: unknown;
  [k: string]: unknown;
}

const IMMUTABLE = ['size', 'mimetype', 'bucket', 'uuid', 'id'];

export async function patchObject(
  ctx: RequestContext,
  appRef: string,
  bucketSlug: string,
  ref: string,
  input: PatchInput,
): Promise<StorageObject> {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw storageErrors.validation({ non_field_errors: ['expected a JSON object'] });
  const t = await bucketFor(ctx, appRef, bucketSlug, 'read');
  const object = await findObject(ctx, t, ref);
  await requireAccess(ctx, t.bucket, 'update', object.visibility);
  const fe: Record<string, string[]> = {};
  for (const f of IMMUTABLE) if (input[f] !== undefined) fe[f] = ['cannot be changed'];
  if (Object.keys(fe).length) throw storageErrors.validation(fe);
  const rawPath = input.path ?? input.file;
  let filePath = rawPath !== undefined ? parsePath(rawPath, input.path !== undefined ? 'path' : 'file') : undefined;
  let filename: string | undefined;
  if (input.filename !== undefined) {
    if (typeof input.filename !== 'string' || input.filename.trim() === '' || input.filename.includes('/') || input.filename.length > 255) {
      throw storageErrors.validation({ filename: ['must be a file name without "/" (at most 255 characters)'] });
    }
    filename = input.filename.trim();
    // A new filename renames the object within its folder unless a path is given too.
    if (filePath === undefined) {
      const dir = object.filePath.includes('/') ? object.filePath.slice(0, object.filePath.lastIndexOf('/') + 1) : '';
      filePath = dir + filename;
    }
  } else if (filePath !== undefined) filename = filenameOf(filePath);
  const metadata = input.metadata !== undefined ? parseMetadata(input.metadata) : undefined;
  let visibility: 'public' | 'private' | null | undefined;
  if (input.visibility !== undefined) {
    if (input.visibility !== null && input.visibility !== 'public' && input.visibility !== 'private') {
      throw storageErrors.validation({ visibility: ['must be public, private or null'] });
    }
    visibility = input.visibility;
  }
  try {
    const row = await repo.updateObject(ctx.platform.pool, object.id, { filePath, filename, metadata, visibility, userId: userIdOf(ctx) });
    return toStorageObject(ctx, t, row);
  } catch (e) {
    if (isUniqueViolation(e)) throw storageErrors.destinationExists(filePath as string);
    throw mapDbError(e);
  }
}

/** Deletes the row (and counters) in one transaction, then the content (queued first). */
export async function deleteObjectRow(ctx: RequestContext, t: BucketTarget, object: ObjectRow): Promise<void> {
  const cleanupId = await withTransaction(ctx.platform.pool, async (tx) => {
    const locked = await repo.findObjectByUuid(tx, t.bucket.siteId, t.bucket.id, object.uuid, true);
    if (!locked) throw storageErrors.objectNotFound();
    await repo.deleteObject(tx, locked.id);
    await repo.addToCounters(tx, t.bucket.id, -1, -locked.size);
    return repo.enqueueCleanup(tx, t.bucket.provider, locked.storageKey);
  }).catch((e) => {
    throw isAppError(e) ? e : mapDbError(e);
  });
  try {
    await runCleanup(ctx.platform, { id: cleanupId, provider: t.bucket.provider, key: object.storageKey, isPrefix: false });
  } catch (e) {
    // The row is gone; the queued cleanup retries the content. The caller still learns of the failure.
    throw providerError('delete', e);
  }
}

async function removeObject(ctx: RequestContext, appRef: string, bucketSlug: string, ref: string) {
  const t = await bucketFor(ctx, appRef, bucketSlug, 'read');
  const object = await findObject(ctx, t, ref);
  await requireAccess(ctx, t.bucket, 'delete', object.visibility);
  await deleteObjectRow(ctx, t, object);
  return { t, object };
}

export async function deleteObject(ctx: RequestContext, appRef: string, bucketSlug: string, ref: string): Promise<ObjectRow> {
  return (await removeObject(ctx, appRef, bucketSlug, ref)).object;
}

/** deleteObject answering the object as it was (GraphQL `deleteObject`). */
export async function deleteObjectAsWas(ctx: RequestContext, appRef: string, bucketSlug: string, ref: string): Promise<StorageObject> {
  const { t, object } = await removeObject(ctx, appRef, bucketSlug, ref);
  return toStorageObject(ctx, t, object);
}

export interface CopyMoveInput {
  source_path?: unknown;
  destination_path?: unknown;
  destination_bucket?: unknown;
}

async function destinationOf(ctx: RequestContext, appRef: string, source: BucketTarget, input: CopyMoveInput, op: 'create' | 'update') {
  const fe: Record<string, string[]> = {};
  if (input.source_path === undefined) fe.source_path = ['This field is required.'];
  if (input.destination_path === undefined) fe.destination_path = ['This field is required.'];
  if (input.destination_bucket !== undefined && input.destination_bucket !== null && typeof input.destination_bucket !== 'string') {
    fe.destination_bucket = ['must be a bucket slug'];
  }
  if (Object.keys(fe).length) throw storageErrors.validation(fe);
  const sourcePath = parsePath(input.source_path, 'source_path');
  const destinationPath = parsePath(input.destination_path, 'destination_path');
  const destSlug = (input.destination_bucket as string | undefined) || source.bucket.slug;
  if (destSlug !== source.bucket.slug) {
    const other = await findBucket(ctx, appRef, destSlug);
    if (other.bucket.provider !== source.bucket.provider) throw storageErrors.crossProvider();
  }
  const dest = destSlug === source.bucket.slug ? source : await bucketFor(ctx, appRef, destSlug, op === 'create' ? 'create' : 'update');
  if (dest !== source) await requireAccess(ctx, dest.bucket, 'create');
  return { sourcePath, destinationPath, dest };
}

/** Copies an object to a new path (possibly in another bucket of the same provider); 201. */
export async function copyObject(ctx: RequestContext, appRef: string, bucketSlug: string, input: CopyMoveInput): Promise<StorageObject> {
  const source = await bucketFor(ctx, appRef, bucketSlug, 'read');
  const { sourcePath, destinationPath, dest } = await destinationOf(ctx, appRef, source, input ?? {}, 'create');
  await requireAccess(ctx, dest.bucket, 'create');
  const object = await repo.findObjectByPath(ctx.platform.pool, source.bucket.siteId, source.bucket.id, sourcePath);
  if (!object) throw storageErrors.sourceNotFound(sourcePath);
  await requireAccess(ctx, source.bucket, 'read', object.visibility);
  if (object.size > dest.bucket.fileSizeLimit) throw storageErrors.tooLarge(dest.bucket.fileSizeLimit);
  const key = newKey(dest.bucket, object.filename);
  try {
    await source.provider.copy(object.storageKey, key);
  } catch (e) {
    if (e instanceof ProviderNotFound) throw storageErrors.sourceNotFound(sourcePath);
    throw providerError('copy', e);
  }
  const metadata = { ...object.metadata, copied_from: { bucket: source.bucket.slug, path: object.filePath, uuid: object.uuid } };
  try {
    const row = await withTransaction(ctx.platform.pool, async (tx) => {
      const inserted = await repo.insertObject(tx, {
        siteId: dest.bucket.siteId,
        bucketId: dest.bucket.id,
        filePath: destinationPath,
        filename: filenameOf(destinationPath),
        metadata,
        userId: userIdOf(ctx),
        visibility: object.visibility,
        storageKey: key,
        size: object.size,
        mimetype: object.mimetype,
        etag: object.etag,
      });
      if (!inserted) throw storageErrors.destinationExists(destinationPath);
      await repo.addToCounters(tx, dest.bucket.id, 1, object.size);
      return inserted;
    });
    return toStorageObject(ctx, dest, row);
  } catch (e) {
    await discard(dest, key);
    throw isAppError(e) ? e : mapDbError(e);
  }
}

/**
 * Moves or renames an object: the uuid stays. Within a bucket only the row changes (keys do not
 * carry paths); across buckets the content is copied under the destination's prefix first and
 * the old key queued for deletion in the same transaction. 409 when the destination exists.
 */
export async function moveObject(ctx: RequestContext, appRef: string, bucketSlug: string, input: CopyMoveInput): Promise<StorageObject> {
  const source = await bucketFor(ctx, appRef, bucketSlug, 'read');
  const { sourcePath, destinationPath, dest } = await destinationOf(ctx, appRef, source, input ?? {}, 'update');
  const object = await repo.findObjectByPath(ctx.platform.pool, source.bucket.siteId, source.bucket.id, sourcePath);
  if (!object) throw storageErrors.sourceNotFound(sourcePath);
  await requireAccess(ctx, source.bucket, 'update', object.visibility);
  if (await repo.findObjectByPath(ctx.platform.pool, dest.bucket.siteId, dest.bucket.id, destinationPath)) {
    throw storageErrors.destinationExists(destinationPath);
  }
  const crossBucket = dest.bucket.id !== source.bucket.id;
  let newStorageKey: string | undefined;
  if (crossBucket) {
    if (object.size > dest.bucket.fileSizeLimit) throw storageErrors.tooLarge(dest.bucket.fileSizeLimit);
    newStorageKey = newKey(dest.bucket, object.filename);
    try {
      await source.provider.copy(object.storageKey, newStorageKey);
    } catch (e) {
      throw providerError('move', e);
    }
  }
  let cleanup: { id: number; key: string } | null = null;
  try {
    const row = await withTransaction(ctx.platform.pool, async (tx) => {
      const locked = await repo.findObjectByUuid(tx, source.bucket.siteId, source.bucket.id, object.uuid, true);
      if (!locked) throw storageErrors.sourceNotFound(sourcePath);
      const updated = await repo.updateObject(tx, locked.id, {
        filePath: destinationPath,
        filename: filenameOf(destinationPath),
        bucketId: crossBucket ? dest.bucket.id : undefined,
        storageKey: newStorageKey,
        userId: userIdOf(ctx),
      });
      if (crossBucket) {
        await repo.addToCounters(tx, source.bucket.id, -1, -locked.size);
        await repo.addToCounters(tx, dest.bucket.id, 1, locked.size);
        cleanup = { id: await repo.enqueueCleanup(tx, source.bucket.provider, locked.storageKey), key: locked.storageKey };
      }
      return updated;
    });
    if (cleanup) await finishCleanup(ctx, source, cleanup);
    return toStorageObject(ctx, dest, row);
  } catch (e) {
    if (newStorageKey) await discard(dest, newStorageKey);
    if (isUniqueViolation(e)) throw storageErrors.destinationExists(destinationPath);
    throw isAppError(e) ? e : mapDbError(e);
  }
}
