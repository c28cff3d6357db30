// The gateway's short way for single-subgraph operations (gateway/graphql/fast-path.ts): the
// first request of an operation goes through Apollo Server and the gateway, which finds its
// plan; a repeated one runs on the subgraph directly. Both must answer exactly alike: data,
// errors, status and content type. Operations across subgraphs never take the short way.
import { startTestApp, type CallResult, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'shop.fastpath.test';
let t: TestApp;
let token: string;

async function gql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>, operationName?: string) {
  return t.call('POST', '/graphql', { token, host: HOST, headers, body: { query, variables, operationName } });
}

const hits = () => t.app.graphql.fast.hits;

/** The same request twice: the second answer equals the first, and says which way it went. */
async function twice(send: () => Promise<CallResult>): Promise<{ first: CallResult; second: CallResult; fast: boolean }> {
  const first = await send();
  const before = hits();
  const second = await send();
  expect(second.status).toBe(first.status);
  expect(second.headers['content-type']).toBe(first.headers['content-type']);
  expect(second.body).toEqual(first.body);
  return { first, second, fast: hits() > before };
}

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createUser();
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'fast-org', owner.id);
  const site = await insertSite(t.platform, org.id, 'fast-site', HOST);
  await insertApp(t.platform, site.id, 'web');
  await createTables(t, { host: HOST, token, app: 'web' }, [
    {
      name: 'notes',
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'title', type: 'string', constraints: { required: true } },
          { name: 'views', type: 'integer' },
        ],
        primaryKey: 'id',
      },
    },
  ]);
  for (const [title, views] of [
    ['a', 1],
    ['b', 5],
    ['c', 9],
  ] as const) {
    await t.call('POST', '/api/apps/web/datatables/notes/data/', { token, host: HOST, body: { title, views } });
  }
});
afterAll(() => t.close());

test('a repeated single-subgraph query takes the short way and answers the same', async () => {
  const page = `query Page($filter: JSON, $sort: [String!]) {
    records(app: "web", table: "notes", filter: $filter, sort: $sort, pageSize: 2) { total page pageSize items { id data } }
  }`;
  const { first, fast } = await twice(() => gql(page, { filter: { views__gte: 2 }, sort: ['-views'] }));
  expect(fast).toBe(true);
  expect(first.status).toBe(200);
  expect(first.body.data.records).toMatchObject({ total: 2, page: 1, pageSize: 2 });
  expect(first.body.data.records.items.map((r: any) => r.data.title)).toEqual(['c', 'b']);
  // Other variables, same document: still the short way, other answer.
  const other = await gql(page, { filter: { views__lte: 2 } });
  expect(other.body.data.records.items.map((r: any) => r.data.title)).toEqual(['a']);
});

test('record(id) runs compiled by graphql-jit (fragments, aliases, __typename too): the data module resolves it', async () => {
  const query = `query One($id: ID!, $full: Boolean!) {
    record(app: "web", table: "notes", id: $id) { __typename ...R again: id data @include(if: $full) }
  }
  fragment R on DataRecord { id }`;
  const { first, fast } = await twice(() => gql(query, { id: '2', full: true }, undefined, 'One'));
  expect(fast).toBe(true);
  expect(t.app.graphql.fast.entry(query, 'One')?.fast?.compiled).toBeTruthy();
  expect(first.body.data.record).toMatchObject({
    __typename: 'DataRecord',
    again: first.body.data.record.id,
    data: { title: 'b', views: 5 },
  });
  const short = await gql(query, { id: '3', full: false }, undefined, 'One');
  expect(short.body.data.record).toEqual({ __typename: 'DataRecord', id: short.body.data.record.id, again: short.body.data.record.id });
});

test('errors are the same both ways (code, path, message, no locations)', async () => {
  const query = 'query One($id: ID!) { record(app: "web", table: "nope", id: $id) { id } }';
  const { first, fast } = await twice(() => gql(query, { id: '1' }));
  expect(fast).toBe(true);
  expect(first.body.errors[0]).toMatchObject({ path: ['record'], extensions: { code: 'not_found', status: 404 } });
  expect(first.body.errors[0].locations).toBeUndefined();
});

test('variables that do not fit the schema get the gateway answer', async () => {
  const query = 'query One($id: ID!) { record(app: "web", table: "notes", id: $id) { id data } }';
  await gql(query, { id: '1' });
  const bad = await gql(query, { id: { not: 'an id' } });
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0].extensions.code).toBe('invalid');
  const missing = await gql(query, {});
  expect(missing.status).toBe(400);
});

test('mutations take the short way too, and each one runs', async () => {
  const create = 'mutation Add($data: JSON!) { createRecord(app: "web", table: "notes", data: $data) { id data } }';
  const a = await gql(create, { data: { title: 'x', views: 0 } });
  const before = hits();
  const b = await gql(create, { data: { title: 'y', views: 0 } });
  expect(hits()).toBe(before + 1);
  expect(a.body.data.createRecord.data.title).toBe('x');
  expect(b.body.data.createRecord.data.title).toBe('y');
  expect(b.body.data.createRecord.id).not.toBe(a.body.data.createRecord.id);
});

test('an operation across subgraphs never takes the short way', async () => {
  const query = '{ app(slug: "web") { slug tables { items { name } } } }';
  const { first, fast } = await twice(() => gql(query));
  expect(fast).toBe(false);
  expect(first.body.data.app).toEqual({ slug: 'web', tables: { items: [{ name: 'notes' }] } });
});

test('introspection never takes the short way', async () => {
  const { first, fast } = await twice(() => gql('{ __schema { queryType { name } } }'));
  expect(fast).toBe(false);
  expect(first.body.data.__schema.queryType.name).toBe('Query');
});

test('the response type follows Accept as Apollo Server chooses it', async () => {
  const query = '{ records(app: "web", table: "notes", pageSize: 1) { total } }';
  const json = await twice(() => gql(query, undefined, { accept: 'application/json' }));
  expect(json.fast).toBe(true);
  expect(json.first.headers['content-type']).toMatch(/^application\/json/);
  const gr = await twice(() => gql(query, undefined, { accept: 'application/graphql-response+json, application/json;q=0.9' }));
  expect(gr.fast).toBe(true);
  expect(gr.first.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
  const refused = await gql(query, undefined, { accept: 'text/html' });
  expect(refused.status).toBe(406);
});

test('a document with several operations runs the named one', async () => {
  const doc = `query A { records(app: "web", table: "notes", pageSize: 1) { total } }
    query B { record(app: "web", table: "notes", id: "1") { id } }`;
  const a = await twice(() => gql(doc, undefined, undefined, 'A'));
  const b = await twice(() => gql(doc, undefined, undefined, 'B'));
  expect(a.first.body.data).toHaveProperty('records');
  expect(b.first.body.data).toEqual({ record: { id: '1' } });
});

test('a computed field (DataTable.rowCount) answers the same on the short way as through the gateway', async () => {
  // graphql-jit does not call a function stored under a field's name (graphql-js does): such
  // fields need an explicit resolver, else the short way would answer null.
  const { first, fast } = await twice(() => gql('{ datatable(app: "web", name: "notes") { name rowCount } }'));
  expect(fast).toBe(true);
  // (earlier tests here add records: at least the three made at the start)
  expect(first.body.data.datatable).toEqual({ name: 'notes', rowCount: expect.any(Number) });
  expect(first.body.data.datatable.rowCount).toBeGreaterThanOrEqual(3);
});
