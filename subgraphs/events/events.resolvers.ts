// Events subgraph resolvers: App.functions.
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { DateTimeResolver } from 'graphql-scalars';
import { pageQuery, toConnection, type PageArgs } from '../core/graphql/context.js';
import { listFunctions, type FunctionRow } from './functions/function.service.js';

const toGraphFunction = (f: FunctionRow) => ({
  id: f.id,
  name: f.name,
  slug: f.slug,
  description: f.description,
  executionMode: f.execution_mode,
  webhookUrl: f.webhook_url,
  timeoutSeconds: f.timeout_seconds,
  filterConditions: f.filter_conditions,
  isActive: f.is_active,
  isPublic: f.is_public,
  createdAt: f.created_at,
  updatedAt: f.updated_at,
});

export const eventsResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  App: {
    functions: (app: { id: string }, args: PageArgs, { ctx }) =>
      listFunctions(ctx, app.id, pageQuery(args)).then((r) => toConnection(r, toGraphFunction)),
  },
};
