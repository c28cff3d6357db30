// The fast path's compiled execution (gateway/graphql/compiled.ts) answers exactly as
// graphql-js `execute` does: data, errors (message, path, locations, original error), null
// propagation through non-null fields and list items, sync and async resolvers, variables and
// their refusals. Shapes it does not compile are reported as such (graphql-js runs them).
import { buildSchema, execute, getOperationAST, GraphQLError, parse, type ExecutionResult, type GraphQLObjectType } from 'graphql';
import { CompiledOperation } from '../../gateway/graphql/compiled.js';

const schema = buildSchema(/* GraphQL */ `
  scalar JSON
  enum Color {
    RED
    GREEN
  }
  type Item {
    id: ID!
    name: String
    data: JSON
    color: Color
    mustHave: String!
    fails: String
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
  }
`);
const resolvers: Record<string, Record<string, (...args: any[]) => unknown>> = {
  Query: {
    item: async (_: unknown, { id }: { id: string }) => (id === 'none' ? null : item(id)),
    items: (_: unknown, { ids }: { ids: string[] }) => ids.map((id) => (id === 'none' ? null : Promise.resolve(item(id)))),
    strict: async () => {
      throw new GraphQLError('strict failed', { extensions: { code: 'not_found' } });
    },
    sync: (_: unknown, { n, s }: { n: number; s: string }) => `${s}${n}`,
    badList: () => 7,
    badLeaf: () => 'not a number',
  },
  Item: {
    mustHave: (i: { id: string }) => (i.id.startsWith('null') ? null : `must ${i.id}`),
    fails: (i: { id: string }) => (i.id.startsWith('fail') ? Promise.reject(new Error(`fails ${i.id}`)) : 'ok'),
    children: (i: { id: string }, { first }: { first: number }) => Array.from({ length: first }, (_, k) => item(`${i.id}.${k}`)),
    maybeChildren: (i: { id: string }) => [item(`${i.id}.a`), null, Promise.resolve(item(`null-${i.id}`))],
  },
};
for (const [type, fields] of Object.entries(resolvers)) {
  const t = schema.getType(type) as GraphQLObjectType;
  for (const [name, resolve] of Object.entries(fields)) t.getFields()[name].resolve = resolve;
}

function item(id: string) {
  return { id, name: `n${id}`, data: { a: [1, { b: id }] }, color: 'RED', tags: ['t'], method: () => `m${id}` };
}

async function both(query: string, variables?: Record<string, unknown>): Promise<ExecutionResult> {
  const document = parse(query);
  const operation = getOperationAST(document)!;
  const compiled = CompiledOperation.compile(schema, operation, false);
  expect(compiled).not.toBeNull();
  const expected = await execute({ schema, document, variableValues: variables, contextValue: {} });
  const got = await compiled!.execute(variables, {});
  expect(JSON.stringify(got)).toEqual(JSON.stringify(expected));
  expect(got.errors?.map((e) => [e.message, e.path, e.locations, e.originalError?.message, e.extensions])).toEqual(
    expected.errors?.map((e) => [e.message, e.path, e.locations, e.originalError?.message, e.extensions]),
  );
  return got;
}

test('plain fields, aliases, arguments, defaults, scalars, enums, JSON, method properties', async () => {
  const r = await both(
    `query Q($id: ID!, $n: Int!) {
    item(id: $id) { id name data color tags method other: name children { id } few: children(first: 1) { id mustHave } }
    sync(n: $n) s2: sync(n: 3, s: "y")
  }`,
    { id: 'a', n: 5 },
  );
  expect(r.errors).toBeUndefined();
});

test('nulls, errors and null propagation as graphql-js', async () => {
  await both(`{ item(id: "none") { id } }`);
  await both(`{ item(id: "fail1") { id fails } }`);
  await both(`{ item(id: "null1") { id mustHave } }`);
  await both(`{ items(ids: ["a", "none", "null2", "fail3"]) { id mustHave fails } }`);
  await both(`{ item(id: "x") { maybeChildren { id mustHave } } }`);
  await both(`{ item(id: "x") { children(first: 3) { id fails } } }`);
  await both(`{ strict { id } sync(n: 1) }`);
  await both(`{ badList badLeaf sync(n: 2) }`);
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
  const r = await both(`query Q($id: ID!) { item(id: $id) { id } }`, { id: { not: 'an id' } });
  expect(r).not.toHaveProperty('data');
  await both(`query Q($id: ID!) { item(id: $id) { id } }`, {});
});

test('shapes left to graphql-js', () => {
  const compile = (q: string, fragments = false) => CompiledOperation.compile(schema, getOperationAST(parse(q))!, fragments);
  expect(compile('{ item(id: "a") { __typename id } }')).toBeNull();
  expect(compile('{ item(id: "a") { id @include(if: true) } }')).toBeNull();
  expect(compile('{ item(id: "a") { ... on Item { id } } }')).toBeNull();
  expect(compile('{ item(id: "a") { id } item(id: "a") { name } }')).toBeNull();
  expect(compile('query { item(id: "a") { id } }', true)).toBeNull();
  expect(compile('mutation { x }')).toBeNull();
});
