// Tenancy subgraph: queries and mutations of the sites area (SDL in schema/tenancy/sites.graphql).
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import type { SubgraphContext } from '../../subgraph-context.js';

export const siteAdminResolvers: GraphQLResolverMap<SubgraphContext> = {};
