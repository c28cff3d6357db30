// Secrets subgraph resolvers: Site.secrets (keys, types, tags and tiers; never values).
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { toConnection, type PageArgs } from '../core/graphql/context.js';
import { listSecrets, type SecretSummary } from './secret-list.service.js';

export const secretsResolvers: ResolverMap = {
  Site: {
    secrets: (site: { id: string }, args: PageArgs, { ctx }) =>
      listSecrets(ctx, site.id, args).then((r) => toConnection(r, (s: SecretSummary) => s)),
  },
};
