// Secrets subgraph resolvers: Site.secrets.
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { pageQuery, toConnection, type PageArgs, type SubgraphContext } from '../subgraph-context.js';
import { listSecrets, type SecretSummary } from './secret.service.js';

export const secretsResolvers: GraphQLResolverMap<SubgraphContext> = {
  Site: {
    secrets: (site: { id: string }, args: PageArgs, { ctx }) =>
      listSecrets(ctx, site.id, pageQuery(args)).then((r) => toConnection(r, (s: SecretSummary) => s)),
  },
};
