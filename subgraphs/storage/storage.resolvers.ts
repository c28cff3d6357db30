// Storage subgraph resolvers: App.buckets.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver, SafeIntResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs } from '../core/graphql/context.js';
import { listBuckets, type BucketView } from './bucket.service.js';

export const storageResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  SafeInt: SafeIntResolver,
  App: {
    buckets: (app: { id: string }, args: PageArgs, { ctx }) =>
      listBuckets(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, (b: BucketView) => b)),
  },
};
