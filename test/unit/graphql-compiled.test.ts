// The fast path's compiled execution (graphql-jit, compileOperation in gateway/graphql/fast-path.ts)
// answers exactly as graphql-js `execute` does: data, errors (message, path, extensions, original
// error) and the platform's formatting of them, null propagation through non-null fields and list
// items, sync and async resolvers, fragments, aliases, @include/@skip, __typename, the
// graphql-scalars scalars, variables and their refusals. The schema is built as the subgraphs'
// are (buildSubgraphSchema, resolvers attached to its fields).
import { buildSubgraphSchema } from '@apollo/subgraph';
import { execute, GraphQLError, parse, type ExecutionResult } from 'graphql';
import { DateTimeResolver, JSONResolver, UUIDResolver } from 'graphql-scalars';
import { compileOperation } from '../../gateway/graphql/fast-path.js';
import { errors as appErrors } from '../../subgraphs/core/errors.js';
import { formatGraphqlError } from '../../subgraphs/core/graphql/errors.js';

const typeDefs = parse(/* GraphQL */ `
  scalar JSON
  scalar DateTime
  scalar UUID
  enum Color {
    RED
    GREEN
  }
  type Item {
    id: ID!
    name: String
    data: JSON
    at: DateTime
    uuid: UUID
    color: Color
    mustHave: String!
    fails: String
    appFails: String
    method: String
    tags: [String!]
    children(first: Int = 2): [Item!]!
    maybeChildren: [Item]
  }
  type Query {
    item(id: ID!): Item
    items(ids: [ID!]!): [Item]!
    strict: Item!
    sync(n: Int!, s: String = "x"): String
    badList: [Int]
    badLeaf: Int
    badDate: DateTime
  }
`);

function item(id: string) {
  return {
    id,
    name: `n${id}`,
    data: { a: [1, { b: id }], n: null },
    at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
    uuid: '0b7a3c2e-9f0d-4c1b-8a63-5d2f1e0c9b7a',
    color: 'RED',
    tags: ['t'],
    method: () => `m${id}`,
  };
}

const schema = buildSubgraphSchema({
  typeDefs,
  resolvers: {
    JSON: JSONResolver,
    DateTime: DateTimeResolver,
    UUID: UUIDResolver,
    Query: {
      item: async (_: unknown, { id }: { id: string }) => (id === 'none' ? null : item(id)),
      items: (_: unknown, { ids }: { ids: string[] }) => ids.map((id) => (id === 'none' ? null : Promise.resolve(item(id)))),
      strict: async () => {
        throw new GraphQLError('strict failed', { extensions: { code: 'not_found' } });
      },
      sync: (_: unknown, { n, s }: { n: number; s: string }) => `${s}${n}`,
      badList: () => 7,
      badLeaf: () => 'not a number',
      badDate: () => 'not a date',
    },
    Item: {
      mustHave: (i: { id: string }) => (i.id.startsWith('null') ? null : `must ${i.id}`),
      fails: (i: { id: string }) => (i.id.startsWith('fail') ? Promise.reject(new Error(`fails ${i.id}`)) : 'ok'),
      appFails: () => {
        throw appErrors.notFound('No such record.');
      },
      children: (i: { id: string }, { first }: { first: number }) => Array.from({ length: first }, (_, k) => item(`${i.id}.${k}`)),
      maybeChildren: (i: { id: string }) => [item(`${i.id}.a`), null, Promise.resolve(item(`null-${i.id}`))],
    },
  } as never,
});

function innermost(error: Error): Error {
  let e = error;
  while ((e as GraphQLError).originalError) e = (e as GraphQLError).originalError!;
  return e;
}

/** As server.ts formats the fast path's errors. */
function formatted(result: ExecutionResult) {
  return result.errors?.map((e) => formatGraphqlError({ message: e.message, path: e.path, extensions: e.extensions }, e));
}

/**
 * Runs a document on both; `internalMessages`: the messages of internal errors (a resolver
 * answering a value of the wrong shape) are compared as the client sees them (formatted:
 * "Internal server error."), graphql-jit quoting the field's name differently.
 */
async function both(
  query: string,
  variables?: Record<string, unknown>,
  operationName?: string,
  internalMessages = false,
): Promise<ExecutionResult> {
  const document = parse(query);
  const compiled = compileOperation(schema, document, operationName);
  expect(compiled).not.toBeNull();
  const expected = await execute({ schema, document, operationName, variableValues: variables, contextValue: {} });
  const got = await compiled!.query(undefined, {}, variables);
  if (!('data' in expected)) {
    // Refused variables: the fast path hands the request to the gateway, which answers it.
    expect(got).not.toHaveProperty('data');
    expect(got.errors?.length).toBeGreaterThan(0);
    return got;
  }
  expect(JSON.stringify(got.data)).toEqual(JSON.stringify(expected.data));
  // graphql-js leaves `extensions: {}` where graphql-jit leaves none, and makes the errors it
  // raises itself (non-null, missing variable) as an Error or GraphQLError inside a GraphQLError
  // where graphql-jit makes one GraphQLError; the resolvers' own errors, the messages and the
  // formatted answer are the same. The order of the errors may differ (graphql-jit lists the
  // non-null violations after the resolvers' errors): compared in path order.
  const byPath = <T>(list: T[] | undefined) => list?.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  const errorsOf = (r: ExecutionResult) =>
    byPath(
      r.errors?.map((e) => {
        expect(e).toBeInstanceOf(GraphQLError);
        const cause = innermost(e);
        const own = cause.constructor === Error || cause instanceof GraphQLError ? 'graphql' : cause.constructor;
        if (internalMessages) return [e.path, own];
        return [e.path, e.message, cause.message, own, Object.keys(e.extensions ?? {}).length ? e.extensions : undefined];
      }),
    );
  expect(errorsOf(got)).toEqual(errorsOf(expected));
  expect(byPath(formatted(got))).toEqual(byPath(formatted(expected)));
  return got;
}

test('plain fields, aliases, arguments, defaults, scalars, enums, JSON, DateTime, UUID', async () => {
  const r = await both(
    `query Q($id: ID!, $n: Int!) {
    item(id: $id) { id name data at uuid color tags other: name children { id } few: children(first: 1) { id mustHave } }
    sync(n: $n) s2: sync(n: 3, s: "y")
  }`,
    { id: 'a', n: 5 },
  );
  expect(r.errors).toBeUndefined();
  expect(JSON.parse(JSON.stringify(r.data?.item))).toMatchObject({ at: '2026-01-02T03:04:05.006Z', data: { a: [1, { b: 'a' }], n: null } });
});

// Known difference: graphql-js's default resolver calls a method found under the field's name;
// graphql-jit reads the property (a function, answered as null). The platform's resolvers
// return plain data.
test('a method under a field name: graphql-jit does not call it', async () => {
  const document = parse(`{ item(id: "a") { method } }`);
  const got = await compileOperation(schema, document, undefined)!.query(undefined, {}, {});
  const expected = await execute({ schema, document, contextValue: {} });
  expect(expected.data).toEqual({ item: { method: 'ma' } });
  expect(got.data).toEqual({ item: { method: null } });
});

test('fragments, aliases of one field, @include/@skip, __typename, several operations', async () => {
  await both(
    `
    query Q($yes: Boolean!, $no: Boolean = false) {
      item(id: "a") { __typename ...F ... on Item { alias: name @include(if: $yes) at @skip(if: $yes) } }
      again: item(id: "b") { id @skip(if: $no) name @include(if: $no) }
      item2: item(id: "a") { ...F children(first: 1) { ...F } }
      __typename
    }
    fragment F on Item { id uuid tags }`,
    { yes: true },
  );
  await both(`{ item(id: "a") { id } item(id: "a") { name } }`);
  await both(`query A { sync(n: 1) } query B { item(id: "c") { id } }`, undefined, 'B');
});

test('literals are data, never code: quotes, backticks, ${}, backslashes, line breaks', async () => {
  const s = '\\"); throw new Error(1); //`${process.exit(1)}` \\u2028 \\n \\\\';
  const block = '"""a\n"b"\n\\""""""';
  const r = await both(`{ sync(n: 1, s: "${s}") block: sync(n: 2, s: ${block}) }`);
  expect(r.errors).toBeUndefined();
  expect(r.data?.sync).toBe(`${JSON.parse(`"${s}"`)}1`);
  expect(r.data?.block).toBe('a\n"b"\n"""2');
});

test('a list of records', async () => {
  const r = await both(`{ items(ids: ["a", "b", "c"]) { id name data at children { id color } } }`);
  expect((r.data?.items as unknown[]).length).toBe(3);
});

test('nulls, errors (extensions.code, platform errors) and null propagation as graphql-js', async () => {
  await both(`{ item(id: "none") { id } }`);
  await both(`{ item(id: "fail1") { id fails } }`);
  await both(`{ item(id: "null1") { id mustHave } }`);
  await both(`{ items(ids: ["a", "none", "null2", "fail3"]) { id mustHave fails } }`);
  await both(`{ item(id: "x") { maybeChildren { id mustHave } } }`);
  await both(`{ item(id: "x") { children(first: 3) { id fails } } }`);
  const r = await both(`{ strict { id } sync(n: 1) }`);
  expect(r.errors?.map((e) => [e.message, e.path, e.extensions])).toEqual([['strict failed', ['strict'], { code: 'not_found' }]]);
  const app = await both(`{ item(id: "a") { id appFails } }`);
  expect(formatted(app)?.[0]).toMatchObject({ message: 'No such record.', path: ['item', 'appFails'], extensions: { code: 'not_found' } });
  await both(`{ badList badLeaf sync(n: 2) }`, undefined, undefined, true);
  await both(`{ badDate }`, undefined, undefined, true);
});

test('arguments from variables: absent, null, given, defaults', async () => {
  const q = `query Q($s: String, $n: Int!) { sync(n: $n, s: $s) other: sync(n: 4) }`;
  await both(q, { n: 1 });
  await both(q, { n: 1, s: null });
  await both(q, { n: 1, s: 'z' });
  await both(`query Q($id: ID) { item(id: $id) { id } }`, { id: 7 });
  await both(`query Q($id: ID) { item(id: $id) { id } }`, {});
  await both(`query Q($id: ID) { item(id: $id) { id } }`, { id: null });
  await both(`query Q($ids: [ID!]!) { items(ids: $ids) { id } }`, { ids: ['a', 3] });
  await both(`query Q($id: ID!) { items(ids: ["a", $id]) { id } }`, { id: 'b' });
});

test('variables refused: errors only, nothing run', async () => {
  await both(`query Q($n: Int!) { sync(n: $n) }`, { n: 'x' });
  await both(`query Q($n: Int!) { sync(n: $n) }`, { n: null });
  await both(`query Q($id: ID!) { item(id: $id) { id } }`, { id: { not: 'an id' } });
  await both(`query Q($id: ID!) { item(id: $id) { id } }`, {});
});
