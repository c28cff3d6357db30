// Tenancy subgraph: queries and mutations of the users area (SDL in schema/tenancy/users.graphql).
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import type { SubgraphContext } from '../../subgraph-context.js';

export const userAdminResolvers: GraphQLResolverMap<SubgraphContext> = {};
