// Tenancy subgraph: queries and mutations of the organizations area (SDL in schema/tenancy/organizations.graphql).
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import type { SubgraphContext } from '../../subgraph-context.js';

export const organizationAdminResolvers: GraphQLResolverMap<SubgraphContext> = {};
