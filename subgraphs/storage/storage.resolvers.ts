// Storage subgraph resolvers: App.buckets.
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { DateTimeResolver, SafeIntResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs, type SubgraphContext } from '../subgraph-context.js';
import { listBuckets, type BucketView } from './bucket.service.js';

export const storageResolvers: GraphQLResolverMap<SubgraphContext> = {
  DateTime: DateTimeResolver,
  SafeInt: SafeIntResolver,
  App: {
    buckets: (app: { id: string }, args: PageArgs, { ctx }) =>
      listBuckets(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, (b: BucketView) => b)),
  },
};
