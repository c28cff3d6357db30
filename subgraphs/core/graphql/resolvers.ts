// The type of a module's resolver map, as buildSubgraphSchema takes it. Declared here because
// @apollo/subgraph keeps its own GraphQLResolverMap type out of its public exports.
import type { GraphQLFieldResolver, GraphQLScalarType } from 'graphql';
import type { SubgraphContext } from './context.js';

type FieldResolver = GraphQLFieldResolver<any, SubgraphContext, any>;

export interface ResolverMap {
  [typeName: string]:
    | { [fieldName: string]: FieldResolver | { requires?: string; resolve: FieldResolver } }
    | GraphQLScalarType
    | { [enumValue: string]: string | number };
}
