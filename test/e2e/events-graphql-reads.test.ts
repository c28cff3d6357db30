// Everything of the events module a client reads through REST is reachable through GraphQL
// (issue 11 item 3): an event's subscribers of an app (App.eventSubscribers vs
// GET /api/apps/{app}/events/{event}/), the site's invocations (Query.invocations vs
// GET /api/invocations/), one invocation (Query.invocation by id vs GET /api/invocations/{id}/,
// by taskId vs GET /api/result/{task_id}/). Both transports call the same services; the
// answers are compared field by field.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'reads.events.test';
const CODE = 'async function main(p) { if (p.fail) throw new Error("no"); return { twice: p.n * 2 }; }';
let t: TestApp;
let owner: string;
let reader: string;
let outsider: string;
let fnId: number;
const runs: { invocation_id: number; task_id: string }[] = [];

const as = (token = owner) => ({ token, host: HOST });
const rest = async (url: string, token = owner) => {
  const r = await t.call('GET', url, as(token));
  expect(r.status).toBe(200);
  return r.body;
};
const gql = async (query: string, variables: Record<string, unknown> = {}, token = owner) =>
  (await t.call('POST', '/graphql', { ...as(token), body: { query, variables } })).body;

beforeAll(async () => {
  t = await startTestApp();
  const o = await t.createUser();
  const r = await t.createUser();
  owner = t.tokenFor(o);
  reader = t.tokenFor(r);
  outsider = t.tokenFor(await t.createUser());
  const org = await insertOrg(t.platform, 'acme-reads', o.id);
  const site = await insertSite(t.platform, org.id, 'readssite', HOST);
  await insertApp(t.platform, site.id, 'web');
  // A member who reads functions but may not write them (the subscribers read needs functions:write).
  await t.platform.pool.query(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`, [
    org.id,
    r.id,
    '{view_site,functions:read}',
  ]);
  const post = async (url: string, body: unknown, status: number) => {
    const res = await t.call('POST', url, { ...as(), body });
    if (res.status !== status) throw new Error(`${url}: ${res.status} ${res.text}`);
    return res.body;
  };
  fnId = (await post('/api/apps/web/functions/', { name: 'doubler', code: CODE, filter_conditions: 'true' }, 201)).id;
  const other = (await post('/api/apps/web/functions/', { name: 'other', code: CODE }, 201)).id;
  await post('/api/cloud/events/RECORD_CREATE/subscribe/', { function_id: fnId }, 201);
  await post('/api/cloud/events/RECORD_CREATE/subscribe/', { function_id: other }, 201);
  await post('/api/cloud/events/RECORD_UPDATE/subscribe/', { function_id: other }, 201);
  runs.push(await post('/api/apps/web/functions/doubler/execute/', { params: { n: 2 } }, 200));
  runs.push(await post('/api/apps/web/functions/doubler/execute/', { params: { fail: true } }, 200));
  runs.push(await post('/api/apps/web/functions/other/execute/', { params: { n: 5 } }, 200));
});

afterAll(() => t?.close());

const SUBSCRIBER = 'id event function functionName functionSlug filterConditions appName appSlug createdAt';
const INVOCATION = `id function functionName functionSlug appSlug triggerType event status taskId idempotencyKey params result error
  logs attempts maxAttempts deliveries deadLetter startedAt finishedAt durationMs createdAt`;

/** A REST subscriber under GraphQL's field names. */
const subscriberAsGraph = (s: any) => ({
  id: s.subscriber_id,
  event: s.event,
  function: s.function_id,
  functionName: s.function_name,
  functionSlug: s.function_slug,
  filterConditions: s.filter_conditions,
  appName: s.app_name,
  appSlug: s.app_slug,
  createdAt: s.created_at,
});

/** A REST invocation under GraphQL's field names. */
const invocationAsGraph = (i: any) => ({
  id: i.id,
  function: i.function,
  functionName: i.function_name,
  functionSlug: i.function_slug,
  appSlug: i.app_slug,
  triggerType: i.trigger_type,
  event: i.event,
  status: i.status,
  taskId: i.task_id,
  idempotencyKey: i.idempotency_key,
  params: i.params,
  result: i.result,
  error: i.error,
  logs: i.logs,
  attempts: i.attempts,
  maxAttempts: i.max_attempts,
  deliveries: i.deliveries,
  deadLetter: i.dead_letter,
  startedAt: i.started_at,
  finishedAt: i.finished_at,
  durationMs: i.duration_ms,
  createdAt: i.created_at,
});

it('App.eventSubscribers answers the subscribers of GET /api/apps/{app}/events/{event}/', async () => {
  const r = await rest('/api/apps/web/events/RECORD_CREATE/');
  expect(r.data.total_subscribers).toBe(2);
  const g = await gql(`{ app(slug: "web") { eventSubscribers(event: "RECORD_CREATE") { total page pageSize items { ${SUBSCRIBER} } } } }`);
  expect(g.errors).toBeUndefined();
  expect(g.data.app.eventSubscribers).toEqual({
    total: 2,
    page: 1,
    pageSize: 20,
    items: r.data.subscribers.map(subscriberAsGraph),
  });
  // The second page of one: the second subscriber, the same total.
  const p2 = await gql(`{ app(slug: "web") { eventSubscribers(event: "RECORD_CREATE", page: 2, pageSize: 1) { total items { id } } } }`);
  expect(p2.data.app.eventSubscribers).toEqual({ total: 2, items: [{ id: r.data.subscribers[1].subscriber_id }] });
  const u = await gql(`{ app(slug: "web") { eventSubscribers(event: "RECORD_UPDATE") { total items { functionSlug } } } }`);
  expect(u.data.app.eventSubscribers).toEqual({ total: 1, items: [{ functionSlug: 'other' }] });
});

it('App.eventSubscribers refuses what REST refuses: an unknown event, a caller without functions:write', async () => {
  const bad = await gql(`{ app(slug: "web") { eventSubscribers(event: "NOPE") { total } } }`);
  const restBad = await t.call('GET', '/api/apps/web/events/NOPE/', as());
  expect(restBad.status).toBe(bad.errors[0].extensions.status);
  expect(bad.errors[0].extensions.status).toBeGreaterThanOrEqual(400);

  expect((await t.call('GET', '/api/apps/web/events/RECORD_CREATE/', as(reader))).status).toBe(403);
  const refused = await gql(`{ app(slug: "web") { eventSubscribers(event: "RECORD_CREATE") { total } } }`, {}, reader);
  expect(refused.errors[0].extensions).toMatchObject({ code: 'permission_denied', status: 403 });
  expect(refused.errors[0].path).toEqual(['app', 'eventSubscribers']);
});

it('Query.invocations answers GET /api/invocations/ with the same filters and pages', async () => {
  const all = await rest('/api/invocations/?page_size=10');
  expect(all.count).toBe(3);
  const g = await gql(`{ invocations(pageSize: 10) { total page pageSize items { ${INVOCATION} } } }`);
  expect(g.errors).toBeUndefined();
  expect(g.data.invocations).toEqual({ total: 3, page: 1, pageSize: 10, items: all.results.map(invocationAsGraph) });

  const filtered = await rest(`/api/invocations/?function=${fnId}&status=failed`);
  expect(filtered.count).toBe(1);
  const gf = await gql(`query ($f: Int) { invocations(function: $f, status: "failed") { total items { ${INVOCATION} } } }`, { f: fnId });
  expect(gf.data.invocations).toEqual({ total: 1, items: filtered.results.map(invocationAsGraph) });

  const page2 = await rest('/api/invocations/?page=2&page_size=2');
  const gp = await gql(`{ invocations(page: 2, pageSize: 2, triggerType: "api") { total items { id } } }`);
  expect(gp.data.invocations).toEqual({ total: 3, items: page2.results.map((i: any) => ({ id: i.id })) });

  const badStatus = await gql(`{ invocations(status: "sleeping") { total } }`);
  expect(badStatus.errors[0].extensions).toMatchObject({ code: 'invalid', status: 400 });
  expect((await t.call('GET', '/api/invocations/?status=sleeping', as())).status).toBe(400);
});

it('Query.invocation answers GET /api/invocations/{id}/ by id and GET /api/result/{task_id}/ by taskId; null when none', async () => {
  for (const run of runs) {
    const one = await rest(`/api/invocations/${run.invocation_id}/`);
    const byId = await gql(`query ($id: Int) { invocation(id: $id) { ${INVOCATION} } }`, { id: run.invocation_id });
    expect(byId.data.invocation).toEqual(invocationAsGraph(one));
    const result = await rest(`/api/result/${run.task_id}/`);
    const byTask = await gql(`query ($t: String) { invocation(taskId: $t) { id taskId status result error logs } }`, { t: run.task_id });
    expect(byTask.data.invocation).toEqual({
      id: result.invocation_id,
      taskId: result.task_id,
      status: result.status,
      result: result.result,
      error: result.error,
      logs: result.logs,
    });
  }
  expect((await t.call('GET', '/api/invocations/999999/', as())).status).toBe(404);
  expect((await gql(`{ invocation(id: 999999) { id } }`)).data.invocation).toBeNull();
  const neither = await gql(`{ invocation { id } }`);
  expect(neither.errors[0].extensions.code).toBe('invalid');
});

it('refuses the invocation reads to a caller outside the site, as REST does', async () => {
  expect((await t.call('GET', '/api/invocations/', as(outsider))).status).toBe(403);
  const list = await gql(`{ invocations { total } }`, {}, outsider);
  expect(list.errors[0].extensions.status).toBe(403);
  const one = await gql(`query ($id: Int) { invocation(id: $id) { id } }`, { id: runs[0].invocation_id }, outsider);
  expect(one.errors[0].extensions.status).toBe(403);
});
