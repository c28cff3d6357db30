// The short way through the gateway for the common request (issue 11 item 1). When the query
// plan of an operation is one fetch from one in-process subgraph (no entity jumps, no
// rewrites), the gateway's work per request (Apollo Server's pipeline, re-deriving the
// operation, executing the plan, re-shaping the subgraph's answer) adds nothing to what the
// subgraph computes. So the plan the gateway makes on the first request of an operation is
// looked at once (`learn`); if it is such a plan, and the client's document is valid against
// that subgraph's schema, later requests with the same document run `execute` on the cached
// document against the subgraph schema directly. Everything else (several subgraphs, remote
// subgraphs, introspection, GET, batches, persisted queries, bad variables) keeps going through
// Apollo Server and the gateway, unchanged.
import type { GraphQLDataSource } from '@apollo/gateway';
import {
  execute,
  getOperationAST,
  Kind,
  validate,
  visit,
  BREAK,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';
import { Lru } from '../../subgraphs/core/lru.js';
import type { SubgraphContext } from '../../subgraphs/core/graphql/context.js';
import { CachedLocalDataSource } from './local-source.js';
import { MAX_CACHED_LENGTH } from './limits.js';

/** Operations remembered (the gateway's own plan cache is bounded in the same spirit). */
const MAX_OPERATIONS = 2000;

export interface FastOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | undefined;
}

/** What `experimental_didResolveQueryPlan` hands over, reduced to what is read here. */
export interface ResolvedPlan {
  queryPlan: { node?: { kind: string } & Record<string, unknown> };
  requestContext: { source?: string; document?: DocumentNode; request: { operationName?: string | null } };
  operationContext: { operation: OperationDefinitionNode };
}

export function operationKey(query: string, operationName: string | null | undefined): string {
  return `${operationName ?? ''}\n${query}`;
}

/** True when the document asks for the schema itself (`__schema`, `__type`): the gateway answers those. */
function introspects(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

export class FastPath {
  /** null: this operation takes the gateway's path. */
  private readonly operations = new Lru<string, FastOperation | null>(MAX_OPERATIONS);
  /** Requests answered the short way (tests and metrics read it). */
  hits = 0;

  constructor(
    private readonly sources: ReadonlyMap<string, GraphQLDataSource<SubgraphContext>>,
    private readonly apiSchema: () => GraphQLSchema | undefined,
  ) {}

  /** Called by the gateway with each plan it resolves: remembers whether the short way applies. */
  learn({ queryPlan, requestContext, operationContext }: ResolvedPlan): void {
    const source = requestContext.source;
    if (source === undefined || source.length > MAX_CACHED_LENGTH) return;
    const key = operationKey(source, requestContext.request.operationName);
    if (this.operations.get(key) !== undefined) return;
    this.operations.set(key, this.analyse(queryPlan, requestContext.document, operationContext.operation));
  }

  private analyse(
    plan: ResolvedPlan['queryPlan'],
    document: DocumentNode | undefined,
    operation: OperationDefinitionNode,
  ): FastOperation | null {
    const node = plan.node;
    if (!document || !node || node.kind !== 'Fetch') return null;
    if (node.requires || (node.inputRewrites as unknown[] | undefined)?.length || (node.outputRewrites as unknown[] | undefined)?.length) {
      return null;
    }
    if ((node as { contextRewrites?: unknown[] }).contextRewrites?.length) return null;
    const local = this.sources.get(node.serviceName as string);
    if (!(local instanceof CachedLocalDataSource)) return null;
    if (operation.operation !== 'query' && operation.operation !== 'mutation') return null;
    if (introspects(document)) return null;
    // The client's document must mean the same on the subgraph: every field, argument and
    // fragment of it is the subgraph's own.
    if (validate(local.schema, document).length > 0) return null;
    const selected = getOperationAST(document, operation.name?.value);
    if (!selected || selected.kind !== Kind.OPERATION_DEFINITION) return null;
    return { schema: local.schema, document, operation: selected, operationName: operation.name?.value };
  }

  /** The short way for this document, if a previous request found one. */
  lookup(query: string, operationName: string | null | undefined): FastOperation | null | undefined {
    return this.operations.get(operationKey(query, operationName));
  }

  /**
   * Runs the operation on its subgraph; undefined when the variables do not fit the public
   * schema (the gateway's path then answers with its usual error).
   */
  async execute(
    op: FastOperation,
    variables: Record<string, unknown> | undefined,
    context: SubgraphContext,
  ): Promise<ExecutionResult | undefined> {
    const api = this.apiSchema();
    if (!api) return undefined;
    const coerced = getVariableValues(api, op.operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 1 });
    if (coerced.errors) return undefined;
    this.hits++;
    return execute({
      schema: op.schema,
      document: op.document,
      operationName: op.operationName,
      variableValues: variables,
      contextValue: context,
    });
  }

  get size(): number {
    return this.operations.size;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';
const acceptCache = new Lru<string, string | null>(100);

/**
 * The response type Apollo Server would choose for an `Accept` header (JSON or
 * graphql-response+json, by quality, then by order in the header); null for anything else
 * (the gateway's path then answers it, 406 included).
 */
export function responseType(accept: string | undefined): string | null {
  if (!accept) return JSON_TYPE;
  let chosen = acceptCache.get(accept);
  if (chosen !== undefined) return chosen;
  let json = { q: 0, order: Infinity, spec: -1 };
  let gr = { q: 0, order: Infinity, spec: -1 };
  accept.split(',').forEach((part, order) => {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) return;
    const match = (type: string, current: typeof json) => {
      const spec = range === type ? 2 : range === 'application/*' ? 1 : range === '*/*' ? 0 : -1;
      return spec > current.spec ? { q, order, spec } : current;
    };
    json = match('application/json', json);
    gr = match('application/graphql-response+json', gr);
  });
  if (json.q <= 0 && gr.q <= 0) chosen = null;
  else if (gr.q > json.q || (gr.q === json.q && gr.order < json.order)) chosen = GRAPHQL_RESPONSE_TYPE;
  else chosen = JSON_TYPE;
  acceptCache.set(accept, chosen);
  return chosen;
}
