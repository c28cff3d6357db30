// Storage subgraph resolvers: App.buckets.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver, SafeIntResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs } from '../core/graphql/context.js';
import { listBuckets, toBucketView } from './bucket.service.js';
import type { BucketRow } from './storage.repository.js';

export const storageResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  SafeInt: SafeIntResolver,
  App: {
    buckets: (app: { id: string }, args: PageArgs, { ctx }) =>
      listBuckets(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, (b: BucketRow) => toBucketView(b))),
  },
};
