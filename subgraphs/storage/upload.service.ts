// Upload routes (seed 2 "Upload rules"): multipart `objects/` and `objects/upload/`, raw or
// multipart `PUT|POST objects/{key}` (upsert), and batch upload. Bodies are streamed from the
// socket into the provider; see object.service.ts for the ordering of writes.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { RequestContext } from '../core/context.js';
import { errors, isAppError } from '../core/errors.js';
import { bucketFor, type BucketTarget } from './bucket.service.js';
import { isMultipart, readMultipart } from './multipart.js';
import { filenameOf, metadataFromHeaders, parseMetadata, parsePath } from './object-input.js';
import { storeContent, toStorageObject, upsertObject, type StorageObject, type StoredContent } from './object.service.js';
import { storageErrors } from './storage-errors.js';

export const BATCH_MAX_FILES = 10;
export const BATCH_MAX_TOTAL = 100 * 1024 * 1024;
const FIELD_SIZE = 128 * 1024;

export interface UploadResult {
  /** A new object (false: an existing path's content replaced). */
  created: boolean;
  object: StorageObject;
}

/** A bucket whose access for an upload is checked against create (new path) or update (existing). */
async function uploadTarget(ctx: RequestContext, appRef: string, bucketSlug: string): Promise<BucketTarget> {
  return bucketFor(ctx, appRef, bucketSlug, 'create');
}

function declaredLength(req: IncomingMessage): number | null {
  const raw = req.headers['content-length'];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : null;
}

/**
 * A multipart upload with one `file` part and optional `path` and `metadata` fields (in any
 * order: the file is stored as it arrives, the row written once the form is complete).
 */
export async function uploadMultipart(
  ctx: RequestContext,
  appRef: string,
  bucketSlug: string,
  req: IncomingMessage,
  fixedPath?: string,
): Promise<UploadResult> {
  if (!isMultipart(req.headers))
    throw errors.unsupportedMediaType(
      String(req.headers['content-type'] ?? 'none')
        .split(';')[0]
        .slice(0, 100),
    );
  const t = await uploadTarget(ctx, appRef, bucketSlug);
  const path = fixedPath !== undefined ? parsePath(fixedPath, 'path') : undefined;
  let fileName = '';
  const { fields, files } = await readMultipart(req, { maxFiles: 1, maxFields: 10, fieldSize: FIELD_SIZE }, async (part) => {
    if (part.field !== 'file') {
      part.stream.resume();
      throw storageErrors.validation({ [part.field]: ['unexpected file field; send the file as "file"'] });
    }
    fileName = part.filename || 'file';
    return storeContent(t, part.stream, fileName, part.mimeType);
  });
  const content = files[0] as StoredContent | undefined;
  if (!content) throw storageErrors.validation({ file: ['No file was submitted.'] });
  try {
    const finalPath = path ?? parsePath(fields.path ?? fields.file_path ?? fileName, 'path');
    const metadata = parseMetadata(fields.metadata);
    const { object, created } = await upsertObject(ctx, t, { path: finalPath, metadata, content });
    return { created, object: toStorageObject(ctx, t, object) };
  } catch (e) {
    // Validation after the file was stored (bad path or metadata): take it back.
    await t.provider.delete(content.storageKey).catch(() => undefined);
    throw e;
  }
}

/** `PUT|POST objects/{key}`: a raw body (metadata in headers) or a multipart form with `file`. */
export async function uploadToKey(
  ctx: RequestContext,
  appRef: string,
  bucketSlug: string,
  key: string,
  req: IncomingMessage,
): Promise<UploadResult> {
  const path = parsePath(decodeURIComponentSafe(key), 'path');
  if (isMultipart(req.headers)) return uploadMultipart(ctx, appRef, bucketSlug, req, path);
  const headerMetadata = metadataFromHeaders(req.headers);
  const length = declaredLength(req);
  return uploadFile(
    ctx,
    appRef,
    bucketSlug,
    { stream: req, filename: path.slice(path.lastIndexOf('/') + 1), mimeType: req.headers['content-type'], declaredLength: length },
    { path, metadata: headerMetadata },
  );
}

/** One file to store: its stream (read once), name and the client's declared type. */
export interface UploadSource {
  stream: Readable;
  filename: string;
  mimeType?: string;
  /** The body's announced length, when known: over the limit or empty is refused before reading. */
  declaredLength?: number | null;
}

/**
 * One file into a bucket, streamed to the provider (size limit and MIME rule enforced while
 * streaming, upload-guard.ts): the raw `PUT|POST objects/{key}` route and GraphQL's
 * `uploadObject` (through the gateway's multipart handling) both call this. The access check,
 * the path and the metadata are settled before the first byte is read. `path` defaults to the
 * filename; an existing path is updated in place (same uuid).
 */
export async function uploadFile(
  ctx: RequestContext,
  appRef: string,
  bucketSlug: string,
  file: UploadSource,
  opts: { path?: string; metadata?: unknown } = {},
): Promise<UploadResult> {
  const t = await uploadTarget(ctx, appRef, bucketSlug);
  const path = parsePath(opts.path ?? file.filename, 'path');
  const metadata = opts.metadata === undefined || opts.metadata === null ? {} : parseMetadata(opts.metadata);
  const length = file.declaredLength ?? null;
  if (length !== null && length > t.bucket.fileSizeLimit) throw storageErrors.tooLarge(t.bucket.fileSizeLimit);
  if (length === 0) throw storageErrors.emptyFile();
  const content = await storeContent(t, file.stream, file.filename || filenameOf(path), file.mimeType);
  const { object, created } = await upsertObject(ctx, t, { path, metadata, content });
  return { created, object: toStorageObject(ctx, t, object) };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw storageErrors.validation({ path: ['is not valid percent-encoding'] });
  }
}

// ---- batch upload ---------------------------------------------------------------------------

interface BatchFile {
  index: number;
  filename: string;
  content?: StoredContent;
  error?: string;
}

/** Each file of a batch: stored (its object) or failed (why); `total` files were sent. */
export interface BatchUploadResult {
  total: number;
  successful: { index: number; path: string; object: StorageObject }[];
  failed: { index: number; path: string; error: string }[];
}

function parseJsonArray(raw: string | undefined, field: 'paths' | 'metadata'): unknown[] | undefined {
  if (raw === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw storageErrors.batchField(field, `${field} must be a JSON array.`);
  }
  if (!Array.isArray(v)) throw storageErrors.batchField(field, `${field} must be a JSON array.`);
  return v;
}

/**
 * Up to 10 files, each validated against the bucket's rules, 100 MB in total. Files are stored
 * as they arrive (one at a time, as multipart is sequential); a file's failure does not stop the
 * others; rows are written once `paths` is known. 200 all stored, 207 some failed.
 */
export async function batchUpload(
  ctx: RequestContext,
  appRef: string,
  bucketSlug: string,
  req: IncomingMessage,
): Promise<BatchUploadResult> {
  if (!isMultipart(req.headers))
    throw errors.unsupportedMediaType(
      String(req.headers['content-type'] ?? 'none')
        .split(';')[0]
        .slice(0, 100),
    );
  const t = await uploadTarget(ctx, appRef, bucketSlug);
  let total = 0;
  const stored: BatchFile[] = [];
  const discardAll = () =>
    Promise.all(stored.filter((f) => f.content).map((f) => t.provider.delete(f.content!.storageKey).catch(() => undefined)));
  let parsed: { fields: Record<string, string>; files: BatchFile[] };
  try {
    parsed = await readMultipart(
      req,
      { maxFiles: BATCH_MAX_FILES, maxFields: 10, fieldSize: FIELD_SIZE * 8, filesField: 'files' },
      async (part) => {
        const entry: BatchFile = { index: part.index, filename: part.filename || `file-${part.index}` };
        stored.push(entry);
        if (part.field !== 'files' && part.field !== 'files[]') {
          part.stream.resume();
          throw storageErrors.batchField('files', 'Send the files as "files".');
        }
        // The batch total is enforced while streaming, like the per-file limit.
        const budget = BATCH_MAX_TOTAL - total;
        const limited = { ...t, bucket: { ...t.bucket, fileSizeLimit: Math.min(t.bucket.fileSizeLimit, budget) } };
        try {
          entry.content = await storeContent(limited, part.stream, entry.filename, part.mimeType);
          total += entry.content.size;
        } catch (e) {
          if (!isAppError(e) || e.status >= 500) throw e;
          if (e.code === 'file_too_large' && budget < t.bucket.fileSizeLimit) {
            throw storageErrors.batchField('non_field_errors', `The files of one batch may total at most ${BATCH_MAX_TOTAL} bytes.`);
          }
          if (e.code === 'empty_file') throw storageErrors.batchField('non_field_errors', `File ${part.index} is empty.`);
          entry.error = e.message;
          part.stream.resume();
        }
        return entry;
      },
    );
  } catch (e) {
    await discardAll();
    throw e;
  }
  const files = parsed.files;
  try {
    if (files.length === 0) throw storageErrors.batchField('files', 'No files were submitted.');
    const paths = parseJsonArray(parsed.fields.paths, 'paths');
    if (!paths) throw storageErrors.batchField('paths', 'This field is required.');
    if (paths.length !== files.length) throw storageErrors.batchField('non_field_errors', 'paths must have one entry per file.');
    if (new Set(paths).size !== paths.length) throw storageErrors.batchField('paths', 'paths must not contain duplicates.');
    const metadata = parseJsonArray(parsed.fields.metadata, 'metadata');
    if (metadata && metadata.length !== files.length)
      throw storageErrors.batchField('non_field_errors', 'metadata must have one entry per file.');
    const result: BatchUploadResult = { total: files.length, successful: [], failed: [] };
    for (const f of files) {
      const rawPath = paths[f.index];
      const pathText = typeof rawPath === 'string' ? rawPath : String(rawPath);
      if (f.error || !f.content) {
        result.failed.push({ index: f.index, path: pathText, error: f.error ?? 'Upload failed.' });
        continue;
      }
      try {
        const path = parsePath(rawPath, 'paths');
        const meta = parseMetadata(metadata?.[f.index] ?? {}, 'metadata');
        const { object } = await upsertObject(ctx, t, { path, metadata: meta, content: f.content });
        f.content = undefined; // now owned by its row
        result.successful.push({ index: f.index, path, object: toStorageObject(ctx, t, object) });
      } catch (e) {
        if (!isAppError(e) || e.status >= 500) throw e;
        if (f.content) await t.provider.delete(f.content.storageKey).catch(() => undefined);
        f.content = undefined;
        const fieldMsg = e.errors ? Object.values(e.errors).flat().join(' ') : '';
        result.failed.push({ index: f.index, path: pathText, error: fieldMsg || e.message });
      }
    }
    return result;
  } finally {
    await discardAll();
  }
}
