// graphql-js `execute`, specialised once per operation of the short way (fast-path.ts), for the
// common shape only: a query of plain fields (no fragments, no directives, no `__typename`),
// whose types are objects without `isTypeOf`, lists, scalars and enums. graphql-js re-derives
// per request what never changes for a cached document (the operation, the fields each
// selection collects, each field's definition and type, the per-request memo caches); here
// that is worked out once. Anything else (`compile` answers null) keeps running graphql-js.
//
// The semantics are graphql-js 16's, step for step (execute.js: executeFields, executeField,
// completeValue, completeListValue, completeLeafValue, handleFieldError, CollectedErrors):
// the same resolver arguments (args, context, info), the same null propagation, the same
// errors (messages, paths, located at the same nodes) in the same order, the same data
// (null-prototype objects). test/unit/graphql-compiled.test.ts checks both against each other.
import {
  GraphQLError,
  Kind,
  assertValidSchema,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  locatedError,
  type ExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { getArgumentValues, getVariableValues } from 'graphql/execution/values.js';
import { inspect } from 'graphql/jsutils/inspect.js';
import { isIterableObject } from 'graphql/jsutils/isIterableObject.js';
import { addPath, pathToArray, type Path } from 'graphql/jsutils/Path.js';
import { promiseForObject } from 'graphql/jsutils/promiseForObject.js';

type Completion =
  | { kind: 'nonNull'; of: Completion }
  | { kind: 'list'; of: Completion; itemNonNull: boolean }
  | { kind: 'leaf'; type: GraphQLLeafType }
  | { kind: 'object'; type: GraphQLObjectType; fields: CompiledField[] };

interface CompiledField {
  responseName: string;
  fieldName: string;
  def: GraphQLField<unknown, unknown>;
  nodes: readonly FieldNode[];
  hasArgs: boolean;
  resolve: GraphQLFieldResolver<unknown, unknown> | undefined;
  returnType: GraphQLOutputType;
  nonNull: boolean;
  completion: Completion;
}

/** What one execution shares (graphql-js's ExecutionContext, less what is compiled). */
interface Run {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: Record<string, never>;
  context: unknown;
  variableValues: Record<string, unknown>;
  errors: GraphQLError[];
  /** CollectedErrors._errorPositions: positions already nulled by an error. */
  positions: Set<Path | undefined>;
}

const isPromise = (v: unknown): v is Promise<unknown> => typeof (v as { then?: unknown } | null)?.then === 'function';

function hasDirectives(set: SelectionSetNode): boolean {
  for (const s of set.selections) {
    if (s.kind !== Kind.FIELD || s.directives?.length) return true;
    if (s.selectionSet && hasDirectives(s.selectionSet)) return true;
  }
  return false;
}

function compileType(type: GraphQLOutputType, nodes: readonly FieldNode[]): Completion | null {
  if (isNonNullType(type)) {
    const of = compileType(type.ofType, nodes);
    return of && { kind: 'nonNull', of };
  }
  if (isListType(type)) {
    const of = compileType(type.ofType, nodes);
    return of && { kind: 'list', of, itemNonNull: isNonNullType(type.ofType) };
  }
  if (isScalarType(type) || isEnumType(type)) return { kind: 'leaf', type };
  if (isObjectType(type) && !type.isTypeOf) {
    const set = nodes[0].selectionSet;
    if (!set || nodes.length !== 1) return null;
    const fields = compileFields(type, set);
    return fields && { kind: 'object', type, fields };
  }
  // Interfaces and unions (resolveType), objects with isTypeOf: graphql-js.
  return null;
}

function compileFields(parent: GraphQLObjectType, set: SelectionSetNode): CompiledField[] | null {
  const out: CompiledField[] = [];
  const names = new Set<string>();
  for (const s of set.selections) {
    if (s.kind !== Kind.FIELD) return null;
    const responseName = s.alias?.value ?? s.name.value;
    // A response name selected twice merges selections (collectFields): graphql-js.
    if (names.has(responseName)) return null;
    names.add(responseName);
    const def = parent.getFields()[s.name.value];
    if (!def) return null; // __typename and the other meta fields
    const nodes = [s];
    const completion = compileType(def.type, nodes);
    if (!completion) return null;
    out.push({
      responseName,
      fieldName: def.name,
      def: def as GraphQLField<unknown, unknown>,
      nodes,
      hasArgs: def.args.length > 0 || (s.arguments?.length ?? 0) > 0,
      resolve: def.resolve as GraphQLFieldResolver<unknown, unknown> | undefined,
      returnType: def.type,
      nonNull: isNonNullType(def.type),
      completion,
    });
  }
  return out;
}

export class CompiledOperation {
  private constructor(
    private readonly schema: GraphQLSchema,
    private readonly operation: OperationDefinitionNode,
    private readonly root: GraphQLObjectType,
    private readonly fields: CompiledField[],
  ) {}

  /** The compiled form of a query, or null when graphql-js must run it. */
  static compile(schema: GraphQLSchema, operation: OperationDefinitionNode, hasFragments: boolean): CompiledOperation | null {
    if (operation.operation !== 'query' || hasFragments || operation.directives?.length) return null;
    if (hasDirectives(operation.selectionSet)) return null;
    assertValidSchema(schema);
    const root = schema.getQueryType();
    if (!root) return null;
    const fields = compileFields(root, operation.selectionSet);
    return fields && new CompiledOperation(schema, operation, root, fields);
  }

  /** As `execute({schema, document, operationName, variableValues, contextValue})`. */
  execute(variables: Record<string, unknown> | undefined, context: unknown): ExecutionResult | Promise<ExecutionResult> {
    const coerced = getVariableValues(this.schema, this.operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 50 });
    if (coerced.errors) return { errors: coerced.errors };
    const run: Run = {
      schema: this.schema,
      operation: this.operation,
      fragments: Object.create(null),
      context,
      variableValues: coerced.coerced,
      errors: [],
      positions: new Set(),
    };
    const respond = (data: unknown): ExecutionResult =>
      run.errors.length === 0 ? { data: data as ExecutionResult['data'] } : { errors: run.errors, data: data as ExecutionResult['data'] };
    try {
      const data = executeFields(run, this.root, undefined, undefined, this.fields);
      if (isPromise(data)) {
        return data.then(respond, (error: GraphQLError) => {
          addError(run, error, undefined);
          return respond(null);
        });
      }
      return respond(data);
    } catch (error) {
      addError(run, error as GraphQLError, undefined);
      return respond(null);
    }
  }
}

function addError(run: Run, error: GraphQLError, path: Path | undefined): void {
  for (let p = path; p !== undefined; p = p.prev) if (run.positions.has(p)) return;
  if (run.positions.has(undefined)) return;
  run.positions.add(path);
  run.errors.push(error);
}

function executeFields(
  run: Run,
  parentType: GraphQLObjectType,
  source: unknown,
  path: Path | undefined,
  fields: CompiledField[],
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = Object.create(null);
  let containsPromise = false;
  try {
    for (const f of fields) {
      const result = executeField(run, parentType, source, f, addPath(path, f.responseName, parentType.name));
      if (result !== undefined) {
        results[f.responseName] = result;
        if (isPromise(result)) containsPromise = true;
      }
    }
  } catch (error) {
    if (containsPromise) {
      return promiseForObject(results as Record<string, Promise<unknown>>).finally(() => {
        throw error;
      });
    }
    throw error;
  }
  return containsPromise ? promiseForObject(results as Record<string, Promise<unknown>>) : results;
}

function resolveInfo(run: Run, parentType: GraphQLObjectType, f: CompiledField, path: Path): GraphQLResolveInfo {
  return {
    fieldName: f.fieldName,
    fieldNodes: f.nodes,
    returnType: f.returnType,
    parentType,
    path,
    schema: run.schema,
    fragments: run.fragments,
    rootValue: undefined,
    operation: run.operation,
    variableValues: run.variableValues,
  };
}

function executeField(run: Run, parentType: GraphQLObjectType, source: unknown, f: CompiledField, path: Path): unknown {
  const info = resolveInfo(run, parentType, f, path);
  try {
    const args = f.hasArgs ? getArgumentValues(f.def, f.nodes[0], run.variableValues) : {};
    let result: unknown;
    if (f.resolve) result = f.resolve(source, args, run.context, info);
    else if ((typeof source === 'object' && source !== null) || typeof source === 'function') {
      // graphql-js's defaultFieldResolver
      const property = (source as Record<string, unknown>)[f.fieldName];
      result =
        typeof property === 'function'
          ? (property as (this: unknown, ...a: unknown[]) => unknown).call(source, args, run.context, info)
          : property;
    }
    const completed = isPromise(result)
      ? result.then((resolved) => complete(run, f.completion, parentType, f, path, resolved))
      : complete(run, f.completion, parentType, f, path, result);
    if (isPromise(completed)) {
      return completed.then(undefined, (rawError: unknown) =>
        handleFieldError(run, locatedError(rawError, f.nodes, pathToArray(path)), f.nonNull, path),
      );
    }
    return completed;
  } catch (rawError) {
    return handleFieldError(run, locatedError(rawError, f.nodes, pathToArray(path)), f.nonNull, path);
  }
}

function handleFieldError(run: Run, error: GraphQLError, nonNull: boolean, path: Path): null {
  if (nonNull) throw error;
  addError(run, error, path);
  return null;
}

function complete(run: Run, c: Completion, parentType: GraphQLObjectType, f: CompiledField, path: Path, result: unknown): unknown {
  if (result instanceof Error) throw result;
  if (c.kind === 'nonNull') {
    const completed = complete(run, c.of, parentType, f, path, result);
    if (completed === null) throw new Error(`Cannot return null for non-nullable field ${parentType.name}.${f.fieldName}.`);
    return completed;
  }
  if (result == null) return null;
  if (c.kind === 'list') return completeList(run, c, parentType, f, path, result);
  if (c.kind === 'leaf') {
    const serialized = c.type.serialize(result);
    if (serialized == null) {
      throw new Error(
        `Expected \`${inspect(c.type)}.serialize(${inspect(result)})\` to ` + `return non-nullable value, returned: ${inspect(serialized)}`,
      );
    }
    return serialized;
  }
  return executeFields(run, c.type, result, path, c.fields);
}

function completeList(
  run: Run,
  c: Extract<Completion, { kind: 'list' }>,
  parentType: GraphQLObjectType,
  f: CompiledField,
  path: Path,
  result: unknown,
): unknown {
  if (!isIterableObject(result)) {
    throw new GraphQLError(`Expected Iterable, but did not find one for field "${parentType.name}.${f.fieldName}".`);
  }
  let containsPromise = false;
  const completed = Array.from(result as Iterable<unknown>, (item, index) => {
    const itemPath = addPath(path, index, undefined);
    try {
      const done = isPromise(item)
        ? item.then((resolved) => complete(run, c.of, parentType, f, itemPath, resolved))
        : complete(run, c.of, parentType, f, itemPath, item);
      if (isPromise(done)) {
        containsPromise = true;
        return done.then(undefined, (rawError: unknown) =>
          handleFieldError(run, locatedError(rawError, f.nodes, pathToArray(itemPath)), c.itemNonNull, itemPath),
        );
      }
      return done;
    } catch (rawError) {
      return handleFieldError(run, locatedError(rawError, f.nodes, pathToArray(itemPath)), c.itemNonNull, itemPath);
    }
  });
  return containsPromise ? Promise.all(completed) : completed;
}
