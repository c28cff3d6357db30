// Storage subgraph resolvers: App.buckets, Bucket.objects and the bucket and object mutations,
// mapped onto the same service calls as the REST routes.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver, JSONResolver, SafeIntResolver } from 'graphql-scalars';
import type { RequestContext } from '../core/context.js';
import { pageQuery, toConnection, type PageArgs } from '../core/graphql/context.js';
import type { Query } from '../core/listing.js';
import { createBucket, deleteBucket, listBuckets, toBucketView, updateBucket, type BucketView } from './bucket.service.js';
import { listObjects } from './list.service.js';
import { copyObject, deleteObjectView, moveObject, patchObject, toObjectView, type ObjectView } from './object.service.js';
import type { BucketRow } from './storage.repository.js';
import { storageErrors } from './storage-errors.js';

/** A bucket as GraphQL sees it, with the app reference its objects field needs. */
type BucketParent = BucketView & { appRef: string };

const bucketOut = (appRef: string, b: BucketRow): BucketParent => ({ ...toBucketView(b), appRef });

const objectOut = (o: ObjectView) => ({
  id: o.id,
  uuid: o.uuid,
  filename: o.filename,
  filePath: o.file_path,
  size: o.size,
  mimetype: o.mimetype,
  metadata: o.metadata,
  visibility: o.visibility,
  isDocEditable: o.is_doc_editable,
  url: o.file_url,
  createdAt: o.created_at,
  updatedAt: o.updated_at,
  createdBy: o.created_by,
  modifiedBy: o.modified_by,
});

/** `filter` (the REST list parameters as an object) as the REST query. */
function filterQuery(filter: unknown, args: PageArgs & { ordering?: string | null }): Query {
  const q: Query = pageQuery(args);
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
  if (args.ordering != null) q.ordering = args.ordering;
  return q;
}

type Ctx = { ctx: RequestContext };

export const storageResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  SafeInt: SafeIntResolver,
  JSON: JSONResolver,
  App: {
    buckets: (app: { id: string }, args: PageArgs, { ctx }: Ctx) =>
      listBuckets(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, (b: BucketRow) => bucketOut(app.id, b))),
  },
  Bucket: {
    objects: async (bucket: BucketParent, args: PageArgs & { filter?: unknown; ordering?: string | null }, { ctx }: Ctx) => {
      const r = await listObjects(ctx, bucket.appRef, bucket.slug, filterQuery(args.filter, args), true);
      const t = { app: r.app, bucket: r.bucket };
      return toConnection({ page: r.page, count: r.count, items: r.rows }, (o) => objectOut(toObjectView(ctx, t, o)));
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
    updateObject: async (_: unknown, a: { app: string; bucket: string; object: string; input: Record<string, unknown> }, { ctx }: Ctx) => {
      const input = Object.fromEntries(Object.entries(a.input).filter(([, v]) => v !== undefined));
      return objectOut(await patchObject(ctx, a.app, a.bucket, a.object, input));
    },
    copyObject: async (_: unknown, a: CopyArgs, { ctx }: Ctx) => objectOut(await copyObject(ctx, a.app, a.bucket, copyInput(a))),
    moveObject: async (_: unknown, a: CopyArgs, { ctx }: Ctx) => objectOut(await moveObject(ctx, a.app, a.bucket, copyInput(a))),
    deleteObject: async (_: unknown, a: { app: string; bucket: string; object: string }, { ctx }: Ctx) =>
      objectOut(await deleteObjectView(ctx, a.app, a.bucket, a.object)),
  },
};

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
