// REST and GraphQL give the same results for the same record requests (DECISIONS §11): one
// sequence of writes and reads runs on two identical tables, one through each transport, and
// every answer and the final contents are compared. Errors carry the REST code.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'shop.gqlwrites.test';
let t: TestApp;
let token: string;

const as = () => ({ token, host: HOST });
const DATA = (name: string) => `/api/apps/web/datatables/${name}/data/`;
const REC = '{ id table data }';

async function gql(query: string, variables: Record<string, unknown>) {
  const res = await t.call('POST', '/graphql', { ...as(), body: { query, variables } });
  return res.body as { data?: Record<string, any>; errors?: Array<{ message: string; extensions: { code: string } }> };
}

const schema = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string', constraints: { required: true, unique: true } },
    { name: 'qty', type: 'integer', constraints: { minimum: 0 } },
    { name: 'kind', type: 'string' },
    { name: 'is_deleted', type: 'boolean' },
  ],
  primaryKey: 'id',
};

/** One step: the REST request on table R and the GraphQL operation on table G, both normalized to comparable values. */
interface Step {
  name: string;
  rest: () => Promise<unknown>;
  graph: () => Promise<unknown>;
}

const CODES: Record<number, string> = { 400: 'invalid', 404: 'not_found', 409: 'conflict', 403: 'permission_denied' };

async function rest(method: string, url: string, body?: unknown, pick: (b: any) => unknown = (b) => b.data) {
  const res = await t.call(method, url, { ...as(), body });
  if (res.status >= 400) return { error: CODES[res.status] ?? res.status };
  return res.status === 204 ? true : pick(res.body);
}
async function graph(query: string, variables: Record<string, unknown>, pick: (d: any) => unknown) {
  const r = await gql(query, { app: 'web', ...variables });
  if (r.errors?.length) return { error: r.errors[0].extensions.code };
  return pick(r.data);
}
const dataOf = (x: { data: unknown }) => x.data;

function steps(R: string, G: string): Step[] {
  const tbl = { table: G };
  return [
    {
      name: 'create one',
      rest: () => rest('POST', DATA(R), { id: 1, name: 'a', qty: 1, kind: 'x' }),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!, $data: JSON!) { createRecord(app: $app, table: $table, data: $data) ${REC} }`,
          { ...tbl, data: { id: 1, name: 'a', qty: 1, kind: 'x' } },
          (d) => d.createRecord.data,
        ),
    },
    {
      name: 'create many',
      rest: () =>
        rest('POST', DATA(R), [
          { id: 2, name: 'b', qty: 2, kind: 'x' },
          { id: 3, name: 'c', qty: 3, kind: 'y' },
          { id: 4, name: 'd', qty: 4, kind: 'y' },
        ]),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!, $data: [JSON!]!) { createRecords(app: $app, table: $table, data: $data) ${REC} }`,
          {
            ...tbl,
            data: [
              { id: 2, name: 'b', qty: 2, kind: 'x' },
              { id: 3, name: 'c', qty: 3, kind: 'y' },
              { id: 4, name: 'd', qty: 4, kind: 'y' },
            ],
          },
          (d) => d.createRecords.map(dataOf),
        ),
    },
    {
      name: 'create invalid',
      rest: () => rest('POST', DATA(R), { id: 9, qty: -1 }),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!, $data: JSON!) { createRecord(app: $app, table: $table, data: $data) { id } }`,
          { ...tbl, data: { id: 9, qty: -1 } },
          (d) => d,
        ),
    },
    {
      name: 'create duplicate',
      rest: () => rest('POST', DATA(R), { id: 9, name: 'a' }),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!, $data: JSON!) { createRecord(app: $app, table: $table, data: $data) { id } }`,
          { ...tbl, data: { id: 9, name: 'a' } },
          (d) => d,
        ),
    },
    {
      name: 'upsert existing',
      rest: () =>
        rest('POST', DATA(R) + 'upsert/?unique_fields=name', { name: 'a', qty: 10 }, (b) => ({ record: b.data, created: b.created })),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!, $data: JSON!) { upsertRecord(app: $app, table: $table, data: $data, uniqueFields: ["name"]) { record ${REC} created } }`,
          { ...tbl, data: { name: 'a', qty: 10 } },
          (d) => ({ record: d.upsertRecord.record.data, created: d.upsertRecord.created }),
        ),
    },
    {
      name: 'update one',
      rest: () => rest('PATCH', DATA(R) + '2/', { kind: 'z' }),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!) { updateRecord(app: $app, table: $table, id: "2", data: {kind: "z"}) ${REC} }`,
          tbl,
          (d) => d.updateRecord.data,
        ),
    },
    {
      name: 'update missing',
      rest: () => rest('PATCH', DATA(R) + '77/', { kind: 'z' }),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!) { updateRecord(app: $app, table: $table, id: "77", data: {kind: "z"}) { id } }`,
          tbl,
          (d) => d,
        ),
    },
    {
      name: 'update array',
      rest: () =>
        rest('PATCH', DATA(R), [
          { id: 3, qty: 30 },
          { id: 4, qty: 40 },
        ]),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!) { updateRecords(app: $app, table: $table, data: [{id: 3, qty: 30}, {id: 4, qty: 40}]) ${REC} }`,
          tbl,
          (d) => d.updateRecords.map(dataOf),
        ),
    },
    {
      name: 'update where',
      rest: () => rest('PATCH', DATA(R) + '?kind=y', { qty: 5 }, (b) => ({ items: b.data, total: b.total })),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!) { updateRecordsWhere(app: $app, table: $table, filter: {kind: "y"}, data: {qty: 5}) { items ${REC} total } }`,
          tbl,
          (d) => ({ items: d.updateRecordsWhere.items.map(dataOf), total: d.updateRecordsWhere.total }),
        ),
    },
    {
      name: 'delete by ids',
      rest: () => rest('DELETE', DATA(R) + '?ids=3,99', undefined, (b) => ({ deleted: b.deleted, ids: b.ids })),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!) { deleteRecords(app: $app, table: $table, ids: ["3", "99"]) { deleted ids } }`,
          tbl,
          (d) => d.deleteRecords,
        ),
    },
    {
      name: 'delete by filter',
      rest: () =>
        rest('DELETE', DATA(R) + '?filter=' + encodeURIComponent('{"qty__gte": 6}') + '&hard_delete=true', undefined, (b) => ({
          deleted: b.deleted,
        })),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!) { deleteRecords(app: $app, table: $table, filter: {qty__gte: 6}, hardDelete: true) { deleted } }`,
          tbl,
          (d) => d.deleteRecords,
        ),
    },
    {
      name: 'delete one',
      rest: () => rest('DELETE', DATA(R) + '2/'),
      graph: () =>
        // REST answers 204; GraphQL the record as the (soft) delete left it.
        graph(
          `mutation($app: String!, $table: String!) { deleteRecord(app: $app, table: $table, id: "2") { id data } }`,
          tbl,
          (d) => d.deleteRecord.id === '2' && d.deleteRecord.data.is_deleted === true,
        ),
    },
    {
      name: 'delete one missing',
      rest: () => rest('DELETE', DATA(R) + '2/'),
      graph: () =>
        graph(
          `mutation($app: String!, $table: String!) { deleteRecord(app: $app, table: $table, id: "2") { id } }`,
          tbl,
          (d) => d.deleteRecord,
        ),
    },
    {
      name: 'read list (include_deleted, sorted)',
      rest: () => rest('GET', DATA(R) + '?include_deleted=true&ordering=-id', undefined, (b) => ({ items: b.data, total: b.total })),
      graph: () =>
        graph(
          `query($app: String!, $table: String!) { records(app: $app, table: $table, includeDeleted: true, sort: ["-id"]) { items ${REC} total } }`,
          tbl,
          (d) => ({ items: d.records.items.map(dataOf), total: d.records.total }),
        ),
    },
    {
      name: 'read one',
      rest: () => rest('GET', DATA(R) + '4/'),
      graph: () =>
        graph(
          `query($app: String!, $table: String!) { record(app: $app, table: $table, id: "4") ${REC} }`,
          tbl,
          (d) => d.record?.data ?? null,
        ),
    },
    {
      // GraphQL answers a missing record with null where REST answers 404.
      name: 'read one missing',
      rest: () => rest('GET', DATA(R) + '1/'),
      graph: () =>
        graph(
          `query($app: String!, $table: String!) { record(app: $app, table: $table, id: "1") ${REC} }`,
          tbl,
          (d) => d.record ?? { error: 'not_found' },
        ),
    },
  ];
}

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createUser();
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'acme-gqlw', owner.id);
  const site = await insertSite(t.platform, org.id, 'gqlw', HOST);
  await insertApp(t.platform, site.id, 'web');
  const res = await t.call('POST', '/api/apps/web/datatables/create_schema/', {
    ...as(),
    body: {
      resources: [
        { name: 'via-rest', schema },
        { name: 'via-graph', schema },
      ],
    },
  });
  expect(res.status).toBe(201);
});
afterAll(() => t.close());

test('every write (and the reads after them) answers the same through REST and GraphQL', async () => {
  const mismatches: string[] = [];
  for (const step of steps('via-rest', 'via-graph')) {
    const [a, b] = [await step.rest(), await step.graph()];
    try {
      expect(b).toEqual(a);
    } catch {
      mismatches.push(`${step.name}: REST ${JSON.stringify(a)} vs GraphQL ${JSON.stringify(b)}`);
    }
  }
  expect(mismatches).toEqual([]);
  const contents = async (name: string) =>
    (await t.platform.pool.query(`SELECT id, name, qty, kind, is_deleted FROM gqlw."web_${name.replace('-', '_')}" ORDER BY id`)).rows;
  expect(await contents('via-graph')).toEqual(await contents('via-rest'));
  expect((await contents('via-rest')).length).toBeGreaterThan(0);
});

test('GraphQL write errors carry the REST code; anonymous callers are refused', async () => {
  const r = await gql(`mutation { createRecord(app: "web", table: "via-graph", data: {nope: 1}) { id } }`, {});
  expect(r.errors?.[0].extensions.code).toBe('invalid');
  const missing = await gql(`mutation { createRecord(app: "web", table: "no-table", data: {}) { id } }`, {});
  expect(missing.errors?.[0].extensions.code).toBe('not_found');
  const anon = await t.call('POST', '/graphql', {
    host: HOST,
    body: { query: `mutation { deleteRecord(app: "web", table: "via-graph", id: "1") { id } }` },
  });
  expect(anon.body.errors?.[0].extensions.code).toBe('not_authenticated');
});
