// A subgraph executed in-process by the gateway. Apollo's LocalGraphQLDataSource parses and
// validates the subgraph operation on every fetch; the operations the query planner sends are
// a bounded set (one per plan node of a cached plan), so this one keeps each parsed and
// validated document and only runs `execute` per fetch.
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { execute, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { Lru } from '../../subgraphs/core/lru.js';
import type { SubgraphContext } from '../../subgraphs/core/graphql/context.js';

/** Planner operations kept per subgraph; beyond that the least recently used is parsed again. */
const MAX_DOCUMENTS = 1000;

type GatewayGraphQLResponse = Awaited<ReturnType<GraphQLDataSource['process']>>;

type Prepared = { document: DocumentNode } | { errors: readonly GraphQLError[] };

export class CachedLocalDataSource implements GraphQLDataSource<SubgraphContext> {
  private readonly documents = new Lru<string, Prepared>(MAX_DOCUMENTS);

  constructor(readonly schema: GraphQLSchema) {}

  /** The parsed and validated document of a subgraph operation, or its errors. */
  prepare(query: string): Prepared {
    let prepared = this.documents.get(query);
    if (!prepared) {
      try {
        const document = parse(query);
        const errors = validate(this.schema, document);
        prepared = errors.length ? { errors } : { document };
      } catch (e) {
        prepared = { errors: [e instanceof GraphQLError ? e : new GraphQLError(String(e))] };
      }
      this.documents.set(query, prepared);
    }
    return prepared;
  }

  async process({ request, context }: GraphQLDataSourceProcessOptions<SubgraphContext>): Promise<GatewayGraphQLResponse> {
    const prepared = this.prepare(request.query ?? '');
    // As LocalGraphQLDataSource: GraphQLError objects, so the platform's AppError stays reachable.
    if ('errors' in prepared) return { errors: prepared.errors } as GatewayGraphQLResponse;
    const result = await execute({
      schema: this.schema,
      document: prepared.document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue: context,
    });
    return result as GatewayGraphQLResponse;
  }
}
