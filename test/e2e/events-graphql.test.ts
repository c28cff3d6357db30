// The events subgraph through the gateway: App.functions, Function.invocations, events and
// the function/subscription mutations, answering like the REST routes.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'gql.events.test';
let t: TestApp;
let owner: string;
let outsider: string;

const gql = async (query: string, variables: Record<string, unknown> = {}, token = owner) =>
  (await t.call('POST', '/graphql', { token, host: HOST, body: { query, variables } })).body;

beforeAll(async () => {
  t = await startTestApp();
  const o = await t.createUser();
  owner = t.tokenFor(o);
  outsider = t.tokenFor(await t.createUser());
  const org = await insertOrg(t.platform, 'acme-gql', o.id);
  const site = await insertSite(t.platform, org.id, 'gqlsite', HOST);
  await insertApp(t.platform, site.id, 'web');
});

afterAll(() => t?.close());

it('creates, runs, lists, subscribes, updates and deletes a function', async () => {
  const c = await gql(
    `mutation($input: FunctionInput!) { createFunction(app: "web", input: $input) { webhookSecret function { id slug executionMode timeoutSeconds } } }`,
    { input: { name: 'Adder', code: 'async function main(p, u, ctx) { ctx.log("add"); return p.a + p.b; }' } },
  );
  expect(c.errors).toBeUndefined();
  expect(c.data.createFunction).toMatchObject({
    webhookSecret: null,
    function: { slug: 'adder', executionMode: 'app', timeoutSeconds: 300 },
  });
  const id = Number(c.data.createFunction.function.id);
  const x = await gql(
    `mutation { executeFunction(app: "web", slug: "adder", params: {a: 2, b: 3}) { success result logs status taskId invocationId } }`,
  );
  expect(x.data.executeFunction).toMatchObject({ success: true, result: 5, logs: ['add'], status: 'succeeded' });
  const s = await gql(
    `mutation($id: Int!) { subscribeFunction(event: "RECORD_CREATE", functionId: $id) { event function functionSlug appSlug } }`,
    { id },
  );
  expect(s.data.subscribeFunction).toEqual({ event: 'RECORD_CREATE', function: id, functionSlug: 'adder', appSlug: 'web' });
  const again = await gql(`mutation($id: Int!) { subscribeFunction(event: "RECORD_CREATE", functionId: $id) { id } }`, { id });
  expect(again.errors[0].extensions.code).toBe('invalid');
  const q = await gql(
    `{ events app(slug: "web") { functions { total items { slug invocations { total items { triggerType status result } } } } } }`,
  );
  expect(q.errors).toBeUndefined();
  expect(q.data.events).toHaveLength(7);
  expect(q.data.app.functions.items[0].invocations).toEqual({ total: 1, items: [{ triggerType: 'api', status: 'succeeded', result: 5 }] });
  const u = await gql(`mutation { updateFunction(app: "web", slug: "adder", input: {timeoutSeconds: 10}) { timeoutSeconds } }`);
  expect(u.data.updateFunction.timeoutSeconds).toBe(10);
  expect(
    (
      await gql(`mutation($id: Int!) { unsubscribeFunction(event: "RECORD_CREATE", functionId: $id) { event function functionSlug } }`, {
        id,
      })
    ).data.unsubscribeFunction,
  ).toEqual({ event: 'RECORD_CREATE', function: id, functionSlug: 'adder' });
  const un2 = await gql(`mutation($id: Int!) { unsubscribeFunction(event: "RECORD_CREATE", functionId: $id) { id } }`, { id });
  expect(un2.errors[0].extensions.code).toBe('not_found');
  expect((await gql(`mutation { deleteFunction(app: "web", slug: "adder") { slug } }`)).data.deleteFunction).toEqual({ slug: 'adder' });
});

it('refuses callers without access and bad input', async () => {
  const r = await gql(`mutation { createFunction(app: "web", input: {name: "x", code: "1"}) { function { id } } }`, {}, outsider);
  expect(r.errors[0].extensions.code).toBe('permission_denied');
  const bad = await gql(`mutation { createFunction(app: "web", input: {name: "x", executionMode: "nope"}) { function { id } } }`);
  expect(bad.errors[0].extensions.code).toBe('invalid');
});
