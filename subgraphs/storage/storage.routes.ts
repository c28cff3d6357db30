// REST adapters of the storage module (seed 2 "Storage", DECISIONS §8). Upload routes take the
// raw request stream (`rawBody`): Fastify neither parses nor buffers their bodies.
import { errors } from '../core/errors.js';
import { listInputFromQuery, param } from '../core/listing.js';
import { RestResult, type RestInput, type RouteSpec } from '../core/rest.js';
import { createBucket, deleteBucket, getBucket, listBuckets, updateBucket } from './bucket.service.js';
import { batchDelete, legacySearch, listObjects, viewEditLink } from './list.service.js';
import { copyObject, deleteObject, download, moveObject, patchObject, readTarget, toStorageObject } from './object.service.js';
import { batchUpload, uploadMultipart, uploadToKey } from './upload.service.js';
import {
  toBatchDeleteRest,
  toBatchUploadRest,
  toBucketRest,
  toListItemRest,
  toObjectRest,
  toObjectRestWithFile,
  toUploadRest,
} from './storage-views.js';
import { storageErrors } from './storage-errors.js';
import type { RequestContext } from '../core/context.js';

type Handler = RouteSpec['handler'];

function route(
  method: RouteSpec['method'],
  path: string,
  permission: string,
  summary: string,
  handler: Handler,
  extra: Partial<RouteSpec> = {},
): RouteSpec {
  return { method, path, scope: 'site', auth: 'optional', module: 'storage', permission, summary, handler, ...extra };
}

const BUCKETS = '/apps/:app/storage/buckets/';
const BUCKET = BUCKETS + ':bucket/';
const OBJECTS = BUCKET + 'objects/';

const ok = (status: number, message: string, data: unknown) =>
  new RestResult(status, { success: true, message, status_code: status, data });

function rawOf(i: RestInput) {
  if (!i.raw) throw errors.internal();
  return i.raw;
}

async function uploaded(p: ReturnType<typeof uploadMultipart>) {
  const r = await p;
  return new RestResult(r.created ? 201 : 200, toUploadRest(r));
}

/** GET objects/{uuid}/ or objects/{path}: the content, or with ?metadata=true the JSON object. */
async function getObject(ctx: RequestContext, i: RestInput) {
  const ref = i.params['*'] ?? '';
  // A path ending in /view/ or /edit/ that is no object is the view/edit route with a path key.
  const viewEdit = /^(.+)\/(view|edit)\/?$/.exec(ref);
  let target;
  try {
    target = await readTarget(ctx, i.params.app, i.params.bucket, ref);
  } catch (e) {
    if (viewEdit && (e as { status?: number }).status === 404) return viewEditResult(ctx, i, viewEdit[1], viewEdit[2] as 'view' | 'edit');
    if (
      (e as { status?: number; code?: string }).status === 404 &&
      (e as { code?: string }).code === 'not_found' &&
      e instanceof Error &&
      e.message === 'Object not found.'
    ) {
      throw storageErrors.fileNotFound();
    }
    throw e;
  }
  const { t, object } = target;
  if (param(i.query, 'metadata') === 'true') return ok(200, 'Object metadata.', toObjectRest(toStorageObject(ctx, t, object)));
  const r = await download(ctx, t, object, i.headers);
  return new RestResult(r.status, r.body, r.headers);
}

async function viewEditResult(ctx: RequestContext, i: RestInput, key: string, mode: 'view' | 'edit') {
  const r = await viewEditLink(ctx, i.params.app, i.params.bucket, key, mode);
  const accept = String(i.headers.accept ?? '');
  if (/application\/json/i.test(accept)) return new RestResult(200, { status: 'success', message: `Document ${mode} link.`, data: r });
  return new RestResult(302, undefined, { Location: r.url });
}

export const storageRoutes: RouteSpec[] = [
  route('GET', BUCKETS, 'storage:read', 'Buckets of an app', async (ctx, i) => {
    const r = await listBuckets(ctx, i.params.app, listInputFromQuery(i.query));
    return {
      status: 'success',
      message: 'Buckets.',
      status_code: 200,
      data: r.items.map(toBucketRest),
      total: r.count,
      page: r.page.page,
      page_size: r.page.pageSize,
    };
  }),
  route('POST', BUCKETS, 'storage:create', 'Create a bucket', async (ctx, i) =>
    ok(201, 'Bucket created.', toBucketRest(await createBucket(ctx, i.params.app, i.body as never))),
  ),
  route('GET', BUCKET, 'storage:read', 'One bucket with object_count and total_size', async (ctx, i) =>
    ok(200, 'Bucket.', toBucketRest(await getBucket(ctx, i.params.app, i.params.bucket))),
  ),
  route('PATCH', BUCKET, 'storage:update', 'Update a bucket', async (ctx, i) =>
    ok(200, 'Bucket updated.', toBucketRest(await updateBucket(ctx, i.params.app, i.params.bucket, i.body as never))),
  ),
  route('DELETE', BUCKET, 'storage:delete', 'Delete a bucket with its objects, metadata and files', async (ctx, i) => {
    const b = await deleteBucket(ctx, i.params.app, i.params.bucket);
    return ok(200, `Bucket "${b.slug}" and its ${b.objectCount} objects deleted.`, { slug: b.slug, deleted_objects: b.objectCount });
  }),

  route('GET', OBJECTS, 'storage:read', 'Objects of a bucket, filtered and paginated', async (ctx, i) => {
    const r = await listObjects(ctx, i.params.app, i.params.bucket, listInputFromQuery(i.query), i.query);
    return {
      status: 'success',
      message: 'Objects.',
      status_code: 200,
      data: r.rows.map(toListItemRest),
      total: r.count,
      page: r.page.page,
      page_size: r.page.pageSize,
    };
  }),
  route(
    'POST',
    OBJECTS,
    'storage:create',
    'Multipart upload: file, path, metadata',
    (ctx, i) => uploaded(uploadMultipart(ctx, i.params.app, i.params.bucket, rawOf(i))),
    {
      rawBody: true,
    },
  ),
  route(
    'POST',
    OBJECTS + 'upload/',
    'storage:create',
    'Multipart upload: file and path',
    (ctx, i) => uploaded(uploadMultipart(ctx, i.params.app, i.params.bucket, rawOf(i))),
    {
      rawBody: true,
    },
  ),
  route(
    'POST',
    OBJECTS + 'search/',
    'storage:read',
    'Legacy search',
    async (ctx, i) => {
      const r = await legacySearch(ctx, i.params.app, i.params.bucket, i.body as never);
      return ok(200, 'Search results.', {
        objects: r.rows.map(toListItemRest).map((o) => ({ ...o, file: o.file_path })),
        count: r.count,
        bucket: r.bucket.slug,
      });
    },
    { status: 200 },
  ),
  route('POST', OBJECTS + 'copy/', 'storage:create', 'Copy an object (same provider)', async (ctx, i) => {
    const o = await copyObject(ctx, i.params.app, i.params.bucket, i.body as never);
    return ok(201, 'Object copied.', toObjectRestWithFile(o));
  }),
  route('POST', OBJECTS + 'move/', 'storage:update', 'Move or rename an object (uuid kept)', async (ctx, i) => {
    const o = await moveObject(ctx, i.params.app, i.params.bucket, i.body as never);
    return ok(200, 'Object moved.', toObjectRestWithFile(o));
  }),
  route(
    'POST',
    OBJECTS + 'batch-upload/',
    'storage:create',
    'Upload up to 10 files',
    async (ctx, i) => {
      const r = toBatchUploadRest(await batchUpload(ctx, i.params.app, i.params.bucket, rawOf(i)));
      return new RestResult(r.status, r.body);
    },
    { rawBody: true },
  ),
  route('POST', OBJECTS + 'batch-delete/', 'storage:delete', 'Delete up to 100 objects by path', async (ctx, i) => {
    const r = toBatchDeleteRest(await batchDelete(ctx, i.params.app, i.params.bucket, i.body as never));
    return new RestResult(r.status, r.body);
  }),
  route('GET', OBJECTS + ':key/view/', 'storage:read', 'Browser view of a document-library object', (ctx, i) =>
    viewEditResult(ctx, i, i.params.key, 'view'),
  ),
  route('GET', OBJECTS + ':key/edit/', 'storage:update', 'Browser edit of a document-library object', (ctx, i) =>
    viewEditResult(ctx, i, i.params.key, 'edit'),
  ),
  route(
    'PUT',
    OBJECTS + '*',
    'storage:create',
    'Upsert by path: raw body with X-Metadata-* headers, or multipart',
    (ctx, i) => uploaded(uploadToKey(ctx, i.params.app, i.params.bucket, i.params['*'] ?? '', rawOf(i))),
    { rawBody: true },
  ),
  route(
    'POST',
    OBJECTS + '*',
    'storage:create',
    'Upsert by path: raw body with X-Metadata-* headers, or multipart',
    (ctx, i) => uploaded(uploadToKey(ctx, i.params.app, i.params.bucket, i.params['*'] ?? '', rawOf(i))),
    { rawBody: true },
  ),
  route('GET', OBJECTS + '*', 'storage:read', 'Download by uuid or path (Range, ETag); ?metadata=true for the JSON object', getObject),
  route('PATCH', OBJECTS + ':uuid/', 'storage:update', 'Update filename, path or metadata', async (ctx, i) =>
    ok(200, 'Object updated.', toObjectRest(await patchObject(ctx, i.params.app, i.params.bucket, i.params.uuid, i.body as never))),
  ),
  route('DELETE', OBJECTS + ':uuid/', 'storage:delete', 'Delete an object and its file', async (ctx, i) => {
    const o = await deleteObject(ctx, i.params.app, i.params.bucket, i.params.uuid);
    return ok(200, 'Object deleted.', { uuid: o.uuid, file_path: o.filePath });
  }),
  route('DELETE', BUCKET + 'object/*', 'storage:delete', 'Delete an object by path', async (ctx, i) => {
    const o = await deleteObject(ctx, i.params.app, i.params.bucket, decodeURIComponent(i.params['*'] ?? ''));
    return ok(200, 'Object deleted.', { uuid: o.uuid, file_path: o.filePath });
  }),
];
