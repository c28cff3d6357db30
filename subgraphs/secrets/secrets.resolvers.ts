// Secrets subgraph resolvers: Site.secrets (keys, types, tags and tiers; never values).
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { pageQuery, toConnection, type PageArgs, type SubgraphContext } from '../subgraph-context.js';
import { listSecrets, type SecretSummary } from './secret-list.service.js';

export const secretsResolvers: GraphQLResolverMap<SubgraphContext> = {
  Site: {
    secrets: (site: { id: string }, args: PageArgs, { ctx }) =>
      listSecrets(ctx, site.id, pageQuery(args)).then((r) => toConnection(r, (s: SecretSummary) => s)),
  },
};
