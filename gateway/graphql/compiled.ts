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
  type GraphQLInputType,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLScalarType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  type VariableNode,
  print,
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
  /** How its arguments are found: none, fixed (literals only), or literals and plain variables. */
  args: ArgumentPlan;
  resolve: GraphQLFieldResolver<unknown, unknown> | undefined;
  returnType: GraphQLOutputType;
  nonNull: boolean;
  completion: Completion;
}

/**
 * `getArgumentValues`, worked out once: literal arguments (and defaults) are coerced at
 * compile time; an argument given as a variable takes the variable's coerced value, as
 * graphql-js does, with its errors. Anything else (a variable inside a list or object
 * literal): graphql-js's getArgumentValues per request.
 */
type ArgumentPlan =
  { kind: 'none' } | { kind: 'fixed'; values: Record<string, unknown>; variables: VariableArgument[] } | { kind: 'graphql' };

interface VariableArgument {
  name: string;
  type: GraphQLInputType;
  node: VariableNode;
  defaultValue: unknown;
}

function planArguments(def: GraphQLField<unknown, unknown>, node: FieldNode): ArgumentPlan {
  if (def.args.length === 0 && !node.arguments?.length) return { kind: 'none' };
  const literal: FieldNode = { ...node, arguments: [] };
  const variables: VariableArgument[] = [];
  const byName = new Map((node.arguments ?? []).map((a) => [a.name.value, a]));
  const literals = [];
  for (const arg of def.args) {
    const given = byName.get(arg.name);
    if (!given) continue;
    if (given.value.kind === Kind.VARIABLE) {
      variables.push({ name: arg.name, type: arg.type, node: given.value, defaultValue: arg.defaultValue });
    } else if (usesVariables(given.value)) return { kind: 'graphql' };
    else literals.push(given);
  }
  // Arguments the field does not define are refused by validation; be exact anyway.
  if ((node.arguments ?? []).some((a) => !def.args.some((d) => d.name === a.name.value))) return { kind: 'graphql' };
  try {
    // The literals and the defaults of the arguments not given, coerced as graphql-js would.
    const fixed = { ...def, args: def.args.filter((a) => !variables.some((v) => v.name === a.name)) };
    const values = getArgumentValues(fixed, { ...literal, arguments: literals }, {});
    // Shared by every request: only values no resolver can change in place.
    if (Object.values(values).some((v) => typeof v === 'object' && v !== null)) return { kind: 'graphql' };
    return { kind: 'fixed', values, variables };
  } catch {
    return { kind: 'graphql' };
  }
}

function usesVariables(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(usesVariables);
  if (value.kind === Kind.OBJECT) return value.fields.some((f) => usesVariables(f.value));
  return false;
}

function argumentValues(f: CompiledField, variableValues: Record<string, unknown>): Record<string, unknown> {
  const plan = f.args;
  if (plan.kind === 'none') return {};
  if (plan.kind === 'graphql') return getArgumentValues(f.def, f.nodes[0], variableValues);
  const coerced: Record<string, unknown> = {};
  // graphql-js fills them in argument-definition order; the literals and defaults first, then
  // the variables, gives the same values (key order aside, which no resolver reads).
  for (const name in plan.values) coerced[name] = plan.values[name];
  for (const v of plan.variables) {
    const variableName = v.node.name.value;
    if (!Object.prototype.hasOwnProperty.call(variableValues, variableName)) {
      if (v.defaultValue !== undefined) coerced[v.name] = v.defaultValue;
      else if (isNonNullType(v.type)) {
        throw new GraphQLError(
          `Argument "${v.name}" of required type "${inspect(v.type)}" ` +
            `was provided the variable "$${variableName}" which was not provided a runtime value.`,
          { nodes: v.node },
        );
      }
      continue;
    }
    const value = variableValues[variableName];
    if (value == null && isNonNullType(v.type)) {
      throw new GraphQLError(`Argument "${v.name}" of non-null type "${inspect(v.type)}" must not be null.`, { nodes: v.node });
    }
    // valueFromAST of a variable: its value, unless undefined (or null for a non-null type).
    if (value === undefined) throw new GraphQLError(`Argument "${v.name}" has invalid value ${print(v.node)}.`, { nodes: v.node });
    coerced[v.name] = value;
  }
  return coerced;
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
      args: planArguments(def as GraphQLField<unknown, unknown>, s),
      resolve: def.resolve as GraphQLFieldResolver<unknown, unknown> | undefined,
      returnType: def.type,
      nonNull: isNonNullType(def.type),
      completion,
    });
  }
  return out;
}

/** A variable of a scalar type (or a non-null one) without a default: coerced without graphql-js's walk. */
interface ScalarVariable {
  name: string;
  scalar: GraphQLScalarType;
  nonNull: boolean;
}

function planVariables(schema: GraphQLSchema, operation: OperationDefinitionNode): ScalarVariable[] | null {
  const out: ScalarVariable[] = [];
  for (const v of operation.variableDefinitions ?? []) {
    if (v.defaultValue || v.directives?.length) return null;
    const nonNull = v.type.kind === Kind.NON_NULL_TYPE;
    const named = v.type.kind === Kind.NON_NULL_TYPE ? v.type.type : v.type;
    if (named.kind !== Kind.NAMED_TYPE) return null;
    const scalar = schema.getType(named.name.value);
    if (!isScalarType(scalar)) return null;
    out.push({ name: v.variable.name.value, scalar, nonNull });
  }
  return out;
}

/** coerceVariableValues for scalar variables; undefined at the first refusal (graphql-js then says why). */
function coerceScalars(plan: ScalarVariable[], inputs: Record<string, unknown>): Record<string, unknown> | undefined {
  const coerced: Record<string, unknown> = {};
  for (const v of plan) {
    if (!Object.prototype.hasOwnProperty.call(inputs, v.name)) {
      if (v.nonNull) return undefined;
      continue;
    }
    const value = inputs[v.name];
    if (value == null) {
      if (v.nonNull) return undefined;
      coerced[v.name] = null;
      continue;
    }
    let parsed: unknown;
    try {
      parsed = v.scalar.parseValue(value);
    } catch {
      return undefined;
    }
    if (parsed === undefined) return undefined;
    coerced[v.name] = parsed;
  }
  return coerced;
}

function respond(run: Run, data: unknown): ExecutionResult {
  return run.errors.length === 0
    ? { data: data as ExecutionResult['data'] }
    : { errors: run.errors, data: data as ExecutionResult['data'] };
}

export class CompiledOperation {
  private constructor(
    private readonly schema: GraphQLSchema,
    private readonly operation: OperationDefinitionNode,
    private readonly root: GraphQLObjectType,
    private readonly fields: CompiledField[],
    private readonly variables: ScalarVariable[] | null,
  ) {}

  /** The compiled form of a query, or null when graphql-js must run it. */
  static compile(schema: GraphQLSchema, operation: OperationDefinitionNode, hasFragments: boolean): CompiledOperation | null {
    if (operation.operation !== 'query' || hasFragments || operation.directives?.length) return null;
    if (hasDirectives(operation.selectionSet)) return null;
    assertValidSchema(schema);
    const root = schema.getQueryType();
    if (!root) return null;
    const fields = compileFields(root, operation.selectionSet);
    return fields && new CompiledOperation(schema, operation, root, fields, planVariables(schema, operation));
  }

  /** As `execute({schema, document, operationName, variableValues, contextValue})`. */
  execute(variables: Record<string, unknown> | undefined, context: unknown): ExecutionResult | Promise<ExecutionResult> {
    let variableValues = this.variables ? coerceScalars(this.variables, variables ?? {}) : undefined;
    if (!variableValues) {
      const coerced = getVariableValues(this.schema, this.operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 50 });
      if (coerced.errors) return { errors: coerced.errors };
      variableValues = coerced.coerced;
    }
    const run: Run = {
      schema: this.schema,
      operation: this.operation,
      fragments: Object.create(null),
      context,
      variableValues,
      errors: [],
      positions: new Set(),
    };
    try {
      const data = executeFields(run, this.root, undefined, undefined, this.fields);
      if (isPromise(data)) {
        return data.then(
          (d) => respond(run, d),
          (error: GraphQLError) => {
            addError(run, error, undefined);
            return respond(run, null);
          },
        );
      }
      return respond(run, data);
    } catch (error) {
      addError(run, error as GraphQLError, undefined);
      return respond(run, null);
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
    const args = argumentValues(f, run.variableValues);
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
