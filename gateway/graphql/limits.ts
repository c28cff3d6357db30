// What one GraphQL operation may ask for (issue 10 item 2), checked before anything runs: the
// number of tokens (while parsing), aliases, depth and an estimated cost (every field 1, a
// list's selection multiplied by its page size). Also refused here with 400, instead of failing
// later: an `operationName` the document does not have, and subscriptions (not served over
// HTTP). Each document's verdict is computed once and kept (bounded). Limits come from
// config.graphqlLimits (GRAPHQL_MAX_ALIASES, _DEPTH, _TOKENS, _COST; docs/graphql.md).
import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  parse,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Config } from '../../subgraphs/core/config.js';
import { AppError } from '../../subgraphs/core/errors.js';

export type GraphqlLimits = Config['graphqlLimits'];

/** The operation a request runs, as far as the edge needs to know it. */
export interface OperationSummary {
  kind: 'query' | 'mutation';
  /** Root fields of a mutation: each counts as one write against the write rate limit. */
  mutations: number;
}

/** ok with a summary, ok without one (GraphQL itself reports what is wrong), or refused. */
export type Verdict = { ok: true; summary: OperationSummary | null } | { ok: false; error: AppError };

/** Page size assumed for a list whose size comes from a variable (the console maximum). */
const VARIABLE_PAGE = 100;
/** Page size assumed for a list without a size argument (the console default). */
const DEFAULT_PAGE = 20;
const MAX_PAGE = 1000;
/** Introspection (GraphiQL's query nests `ofType` deeply) has its own depth bound and no cost. */
const INTROSPECTION_DEPTH = 20;
const SIZE_ARGS = new Set(['pageSize', 'limit', 'first', 'last']);

const refuse = (code: string, message: string, details: Record<string, unknown>): Verdict => ({
  ok: false,
  error: new AppError({ code, status: 400, message, details }),
});

interface Measure {
  aliases: number;
  depth: number;
  cost: number;
}

const ZERO: Measure = { aliases: 0, depth: 0, cost: 0 };

class Analysis {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly memo = new Map<string, Measure>();
  private readonly visiting = new Set<string>();
  introspectionDepth = 0;

  constructor(
    document: DocumentNode,
    private readonly schema: GraphQLSchema | undefined,
  ) {
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(d.name.value, d);
  }

  private fieldDef(parent: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
    if (!parent || !(isObjectType(parent) || isInterfaceType(parent))) return undefined;
    return parent.getFields()[name];
  }

  /** How many items a field's selection runs for. */
  private factor(node: FieldNode, def: GraphQLField<unknown, unknown> | undefined, parent: GraphQLNamedType | undefined): number {
    // A connection's `items` are the page its field already counted.
    if (parent?.name.endsWith('Connection')) return 1;
    const named = def ? getNamedType(def.type) : undefined;
    const isList = def ? isListType(getNullableType(def.type)) || (named?.name.endsWith('Connection') ?? false) : false;
    if (!isList) return 1;
    for (const arg of node.arguments ?? []) {
      if (!SIZE_ARGS.has(arg.name.value)) continue;
      if (arg.value.kind === Kind.INT) return Math.min(MAX_PAGE, Math.max(1, Number(arg.value.value)));
      if (arg.value.kind === Kind.VARIABLE) return VARIABLE_PAGE;
    }
    return DEFAULT_PAGE;
  }

  private introspection(set: SelectionSetNode | undefined, depth: number): void {
    this.introspectionDepth = Math.max(this.introspectionDepth, depth);
    if (!set || depth > INTROSPECTION_DEPTH) return;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) this.introspection(s.selectionSet, depth + 1);
      else if (s.kind === Kind.INLINE_FRAGMENT) this.introspection(s.selectionSet, depth);
      else {
        const f = this.fragments.get(s.name.value);
        if (f && !this.visiting.has(s.name.value)) {
          this.visiting.add(s.name.value);
          this.introspection(f.selectionSet, depth);
          this.visiting.delete(s.name.value);
        }
      }
    }
  }

  measure(set: SelectionSetNode, parent: GraphQLNamedType | undefined): Measure {
    let aliases = 0;
    let depth = 0;
    let cost = 0;
    for (const s of set.selections) {
      let m: Measure;
      if (s.kind === Kind.FIELD) {
        const name = s.name.value;
        if (name === '__typename') continue;
        if (name === '__schema' || name === '__type') {
          this.introspection(s.selectionSet, 1);
          continue;
        }
        const def = this.fieldDef(parent, name);
        const child = s.selectionSet ? this.measure(s.selectionSet, def ? getNamedType(def.type) : undefined) : ZERO;
        m = { aliases: (s.alias ? 1 : 0) + child.aliases, depth: 1 + child.depth, cost: 1 + this.factor(s, def, parent) * child.cost };
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        const type = s.typeCondition ? this.schema?.getType(s.typeCondition.name.value) : parent;
        m = this.measure(s.selectionSet, type ?? undefined);
      } else {
        m = this.spread(s.name.value);
      }
      aliases += m.aliases;
      depth = Math.max(depth, m.depth);
      cost += m.cost;
    }
    return { aliases, depth, cost };
  }

  /** A fragment measured once, however often it is spread (a spread cycle counts nothing: validation refuses it). */
  private spread(name: string): Measure {
    const known = this.memo.get(name);
    if (known) return known;
    const f = this.fragments.get(name);
    if (!f || this.visiting.has(name)) return ZERO;
    this.visiting.add(name);
    const m = this.measure(f.selectionSet, this.schema?.getType(f.typeCondition.name.value) ?? undefined);
    this.visiting.delete(name);
    this.memo.set(name, m);
    return m;
  }
}

function selectOperation(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | Verdict {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName != null && operationName !== '') {
    const named = operations.find((o) => o.name?.value === operationName);
    if (named) return named;
    return refuse('invalid', `The document has no operation named "${operationName.slice(0, 100)}".`, {
      operationName: operationName.slice(0, 100),
    });
  }
  // None or several without a name: GraphQL's own validation says so.
  return operations.length === 1 ? operations[0] : { ok: true, summary: null };
}

export function checkOperation(
  query: string,
  operationName: string | null | undefined,
  limits: GraphqlLimits,
  schema: GraphQLSchema | undefined,
): Verdict {
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: limits.maxTokens, noLocation: true });
  } catch (e) {
    if (e instanceof GraphQLError && /more tha[nt] \d+ tokens/.test(e.message)) {
      return refuse('too_many_tokens', `The document has more than ${limits.maxTokens} tokens.`, { limit: limits.maxTokens });
    }
    return { ok: true, summary: null };
  }
  const operation = selectOperation(document, operationName);
  if (!('kind' in operation)) return operation;
  if (operation.operation === 'subscription') {
    return refuse('invalid', 'Subscriptions are not served over HTTP; use a query or a mutation.', { operation: 'subscription' });
  }
  const root = operation.operation === 'mutation' ? schema?.getMutationType() : schema?.getQueryType();
  const analysis = new Analysis(document, schema);
  const m = analysis.measure(operation.selectionSet, root ?? undefined);
  if (m.aliases > limits.maxAliases) {
    return refuse('too_many_aliases', `The operation uses ${m.aliases} aliases; at most ${limits.maxAliases} are allowed.`, {
      limit: limits.maxAliases,
      value: m.aliases,
    });
  }
  if (m.depth > limits.maxDepth || analysis.introspectionDepth > INTROSPECTION_DEPTH) {
    const depth = Math.max(m.depth, analysis.introspectionDepth);
    const limit = m.depth > limits.maxDepth ? limits.maxDepth : INTROSPECTION_DEPTH;
    return refuse('too_deep', `The operation nests fields ${depth} levels deep; at most ${limit} are allowed.`, { limit, value: depth });
  }
  if (m.cost > limits.maxCost) {
    return refuse('too_costly', `The operation's estimated cost is ${m.cost}; at most ${limits.maxCost} is allowed.`, {
      limit: limits.maxCost,
      value: m.cost,
    });
  }
  let mutations = 0;
  if (operation.operation === 'mutation') {
    for (const s of operation.selectionSet.selections) if (s.kind !== Kind.FIELD || s.name.value !== '__typename') mutations++;
  }
  return { ok: true, summary: { kind: operation.operation, mutations } };
}

/** Documents longer than this (characters) are not kept by the caches of gateway/graphql/. */
export const MAX_CACHED_LENGTH = 20_000;

/** Where verdicts are kept: the gateway's one cache entry per document and operation name (fast-path.ts). */
export interface VerdictStore {
  /** The entry of a document (kept, bounded), or undefined when it is too long to keep. */
  entry(query: string, operationName: string | null | undefined): { verdict?: Verdict } | undefined;
}

/** checkOperation with each document's verdict kept (documents repeat; the store's bound keeps memory flat). */
export class OperationLimits {
  constructor(
    private readonly limits: GraphqlLimits,
    private readonly schema: () => GraphQLSchema | undefined,
    private readonly store: VerdictStore,
  ) {}

  /** `entry`: the document's cache entry when the caller already has it (one lookup per request). */
  check(query: string, operationName: string | null | undefined, entry = this.store.entry(query, operationName)): Verdict {
    // Long documents are checked every time rather than kept: the cache stays small.
    if (!entry) return checkOperation(query, operationName, this.limits, this.schema());
    return (entry.verdict ??= checkOperation(query, operationName, this.limits, this.schema()));
  }
}
