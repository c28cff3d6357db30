// Storage subgraph resolvers: App.buckets, Bucket.objects and the bucket and object mutations,
// mapped onto the same service calls as the REST routes.
import type { Readable } from 'node:stream';
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver, JSONResolver, SafeIntResolver } from 'graphql-scalars';
import { GraphQLUpload, type FileUpload } from 'graphql-upload-minimal';
import type { RequestContext } from '../core/context.js';
import { AppError } from '../core/errors.js';
import { toConnection, type PageArgs } from '../core/graphql/context.js';
import type { Query } from '../core/listing.js';
import { createBucket, deleteBucket, getBucket, listBuckets, toBucketView, updateBucket, type BucketView } from './bucket.service.js';
import { listObjects } from './list.service.js';
import {
  copyObject,
  deleteObjectAsWas,
  moveObject,
  patchObject,
  readTarget,
  toStorageObject,
  type StorageObject,
} from './object.service.js';
import type { BucketRow } from './storage.repository.js';
import { storageErrors } from './storage-errors.js';
import { uploadFile } from './upload.service.js';

/** A bucket as GraphQL sees it, with the app reference its objects field needs. */
type BucketParent = BucketView & { appRef: string };

const bucketOut = (appRef: string, b: BucketRow): BucketParent => ({ ...toBucketView(b), appRef });

const objectOut = (o: StorageObject) => ({
  id: o.id,
  uuid: o.uuid,
  filename: o.filename,
  filePath: o.filePath,
  size: o.size,
  mimetype: o.mimetype,
  metadata: o.metadata,
  visibility: o.visibility,
  isDocEditable: o.isDocEditable,
  url: o.url,
  createdAt: o.createdAt,
  updatedAt: o.updatedAt,
  createdBy: o.createdById,
  modifiedBy: o.modifiedById,
});

/** `filter` (the REST list parameters as an object) as the object filters of listObjects. */
function filterQuery(filter: unknown): Query {
  const q: Query = {};
  if (filter != null) {
    if (typeof filter !== 'object' || Array.isArray(filter)) throw storageErrors.validation({ filter: ['must be an object'] });
    const entries = Object.entries(filter as Record<string, unknown>);
    if (entries.length > 50) throw storageErrors.validation({ filter: ['at most 50 parameters'] });
    for (const [k, v] of entries) {
      if (v === null || v === undefined) continue;
      if (!['string', 'number', 'boolean'].includes(typeof v))
        throw storageErrors.validation({ [k]: ['must be a string, number or boolean'] });
      q[k] = String(v);
    }
  }
  return q;
}

type Ctx = { ctx: RequestContext };

/** A read by reference as a nullable field: `not_found` answers null, every other refusal stays. */
const notFoundAsNull = <T>(p: Promise<T>): Promise<T | null> =>
  p.catch((e: unknown) => {
    if (e instanceof AppError && e.code === 'not_found') return null;
    throw e;
  });

export const storageResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  SafeInt: SafeIntResolver,
  JSON: JSONResolver,
  Upload: GraphQLUpload,
  App: {
    buckets: (app: { id: string }, args: PageArgs, { ctx }: Ctx) =>
      listBuckets(ctx, app.id, { page: args.page, pageSize: args.pageSize }).then((r) =>
        toConnection(r, (b: BucketRow) => bucketOut(app.id, b)),
      ),
    bucket: (app: { id: string }, args: { slug: string }, { ctx }: Ctx) =>
      notFoundAsNull(getBucket(ctx, app.id, args.slug).then((b) => bucketOut(app.id, b))),
  },
  Bucket: {
    object: (bucket: BucketParent, args: { key: string }, { ctx }: Ctx) =>
      notFoundAsNull(
        readTarget(ctx, bucket.appRef, bucket.slug, args.key).then(({ t, object }) => objectOut(toStorageObject(ctx, t, object))),
      ),
    objects: async (bucket: BucketParent, args: PageArgs & { filter?: unknown; ordering?: string | null }, { ctx }: Ctx) => {
      const input = { page: args.page, pageSize: args.pageSize, ordering: args.ordering };
      const r = await listObjects(ctx, bucket.appRef, bucket.slug, input, filterQuery(args.filter), true);
      const t = { app: r.app, bucket: r.bucket };
      return toConnection({ page: r.page, count: r.count, items: r.rows }, (o) => objectOut(toStorageObject(ctx, t, o)));
    },
  },
  Mutation: {
    createBucket: async (_: unknown, a: { app: string; input: Record<string, unknown> }, { ctx }: Ctx) =>
      bucketOut(
        a.app,
        await createBucket(ctx, a.app, {
          name: a.input.name,
          slug: a.input.slug ?? undefined,
          description: a.input.description ?? undefined,
          file_size_limit: a.input.fileSizeLimit ?? undefined,
          allowed_mime_types: a.input.allowedMimeTypes ?? undefined,
          visibility: a.input.visibility ?? undefined,
          provider: a.input.provider ?? undefined,
        }),
      ),
    updateBucket: async (_: unknown, a: { app: string; bucket: string; input: Record<string, unknown> }, { ctx }: Ctx) =>
      bucketOut(
        a.app,
        await updateBucket(ctx, a.app, a.bucket, {
          name: a.input.name ?? undefined,
          description: a.input.description ?? undefined,
          file_size_limit: a.input.fileSizeLimit ?? undefined,
          allowed_mime_types: a.input.allowedMimeTypes,
          visibility: a.input.visibility ?? undefined,
        }),
      ),
    deleteBucket: async (_: unknown, a: { app: string; bucket: string }, { ctx }: Ctx) =>
      bucketOut(a.app, await deleteBucket(ctx, a.app, a.bucket)),
    uploadObject: async (
      _: unknown,
      a: { app: string; bucket: string; file: Promise<FileUpload>; path?: string | null; metadata?: unknown },
      { ctx }: Ctx,
    ) => {
      // The file streams in after the operation (graphql-upload-minimal): its stream is read once,
      // straight into the provider, by the same service function as the REST raw upload.
      let file: FileUpload;
      let stream: Readable;
      try {
        file = await a.file;
        stream = file.createReadStream();
      } catch (e) {
        throw uploadFailed(e);
      }
      try {
        const r = await uploadFile(
          ctx,
          a.app,
          a.bucket,
          { stream, filename: file.filename, mimeType: file.mimetype },
          { path: a.path ?? undefined, metadata: a.metadata ?? undefined },
        );
        return objectOut(r.object);
      } catch (e) {
        // Refused or cut off: the rest of the part is read and dropped, so the request completes.
        stream.resume();
        throw e;
      }
    },
    updateObject: async (_: unknown, a: { app: string; bucket: string; object: string; input: Record<string, unknown> }, { ctx }: Ctx) => {
      const input = Object.fromEntries(Object.entries(a.input).filter(([, v]) => v !== undefined));
      return objectOut(await patchObject(ctx, a.app, a.bucket, a.object, input));
    },
    copyObject: async (_: unknown, a: CopyArgs, { ctx }: Ctx) => objectOut(await copyObject(ctx, a.app, a.bucket, copyInput(a))),
    moveObject: async (_: unknown, a: CopyArgs, { ctx }: Ctx) => objectOut(await moveObject(ctx, a.app, a.bucket, copyInput(a))),
    deleteObject: async (_: unknown, a: { app: string; bucket: string; object: string }, { ctx }: Ctx) =>
      objectOut(await deleteObjectAsWas(ctx, a.app, a.bucket, a.object)),
  },
};

/** The multipart reader's refusal of a file part (missing, cut off, client gone) as a 400 on `file`. */
function uploadFailed(e: unknown): Error {
  const status = (e as { status?: number }).status;
  if (typeof status !== 'number' || status >= 500) return e as Error;
  return storageErrors.validation({ file: [String((e as Error).message).slice(0, 200)] }, 'The file was not received.');
}

interface CopyArgs {
  app: string;
  bucket: string;
  sourcePath: string;
  destinationPath: string;
  destinationBucket?: string | null;
}

const copyInput = (a: CopyArgs) => ({
  source_path: a.sourcePath,
  destination_path: a.destinationPath,
  destination_bucket: a.destinationBucket ?? undefined,
});
