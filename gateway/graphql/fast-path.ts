// The short way through the gateway for the common request (issue 11 item 1). When the query
// plan of an operation is one fetch from one in-process subgraph (no entity jumps, no
// rewrites), the gateway's work per request (Apollo Server's pipeline, re-deriving the
// operation, executing the plan, re-shaping the subgraph's answer) adds nothing to what the
// subgraph computes. So the plan the gateway makes on the first request of an operation is
// looked at once (`learn`); if it is such a plan, and the client's document is valid against
// that subgraph's schema, later requests with the same document run `execute` on the cached
// document against the subgraph schema directly (a query compiled once by graphql-jit when it
// can, graphql-js `execute` otherwise). Everything else (several subgraphs, remote
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
  type TypeNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { Lru } from '../../subgraphs/core/lru.js';
import type { SubgraphContext } from '../../subgraphs/core/graphql/context.js';
import { CachedLocalDataSource } from './local-source.js';
import { MAX_CACHED_LENGTH, type Verdict, type VerdictStore } from './limits.js';

/** Operations remembered (the gateway's own plan cache is bounded in the same spirit). */
const MAX_OPERATIONS = 2000;

/**
 * What the gateway keeps per document and operation name, found with one lookup per request:
 * the limits' verdict (limits.ts) and whether the short way applies.
 */
export interface OperationEntry {
  verdict?: Verdict;
  /** undefined: no plan seen yet; null: this operation takes the gateway's path. */
  fast?: FastOperation | null;
}

export interface FastOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | undefined;
  /** The query compiled by graphql-jit (`compileOperation`), or null: graphql-js executes it. */
  compiled: CompiledQuery | null;
  /**
   * Whether the variables must first be coerced against the public schema. Not when every
   * variable is of a built-in scalar type (or a list of one): both schemas then coerce alike,
   * and a refusal shows in the subgraph's own coercion.
   */
  apiCheck: boolean;
}

const BUILT_IN_SCALARS = new Set(['ID', 'String', 'Int', 'Float', 'Boolean']);

function namedTypeOf(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type);
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

/**
 * A query compiled by graphql-jit, or null when it does not compile it (graphql-js then
 * executes it). Leaves are serialized as graphql-js does (`disableLeafSerialization` stays
 * false); test/unit/graphql-compiled.test.ts checks both executors answer alike.
 */
export function compileOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): CompiledQuery | null {
  try {
    const compiled = compileQuery(schema, document, operationName);
    return isCompiledQuery(compiled) ? compiled : null;
  } catch {
    return null;
  }
}

export class FastPath implements VerdictStore {
  private readonly operations = new Lru<string, OperationEntry>(MAX_OPERATIONS);
  /** Requests answered the short way (tests and metrics read it). */
  hits = 0;

  constructor(
    private readonly sources: ReadonlyMap<string, GraphQLDataSource<SubgraphContext>>,
    private readonly apiSchema: () => GraphQLSchema | undefined,
  ) {}

  /** Called by the gateway with each plan it resolves: remembers whether the short way applies. */
  learn({ queryPlan, requestContext, operationContext }: ResolvedPlan): void {
    const source = requestContext.source;
    if (source === undefined) return;
    const entry = this.entry(source, requestContext.request.operationName);
    if (!entry || entry.fast !== undefined) return;
    entry.fast = this.analyse(queryPlan, requestContext.document, operationContext.operation);
  }

  /**
   * The cache entry of a document and operation name, made on first use; undefined for a
   * document too long to keep. The key is built and hashed once per request.
   */
  entry(query: string, operationName: string | null | undefined): OperationEntry | undefined {
    if (query.length > MAX_CACHED_LENGTH) return undefined;
    const key = operationKey(query, operationName);
    let entry = this.operations.get(key);
    if (!entry) {
      entry = {};
      this.operations.set(key, entry);
    }
    return entry;
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
    return {
      schema: local.schema,
      document,
      operation: selected,
      operationName: operation.name?.value,
      compiled: selected.operation === 'query' ? compileOperation(local.schema, document, operation.name?.value) : null,
      apiCheck: (selected.variableDefinitions ?? []).some((v) => !BUILT_IN_SCALARS.has(namedTypeOf(v.type))),
    };
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
    if (op.apiCheck) {
      const api = this.apiSchema();
      if (!api) return undefined;
      const coerced = getVariableValues(api, op.operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 1 });
      if (coerced.errors) return undefined;
    }
    const result = await (op.compiled
      ? op.compiled.query(undefined, context, variables)
      : execute({
          schema: op.schema,
          document: op.document,
          operationName: op.operationName,
          variableValues: variables,
          contextValue: context,
        }));
    // No `data` at all: the variables were refused before anything ran (the gateway's path answers).
    if (!('data' in result)) return undefined;
    this.hits++;
    return result;
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
