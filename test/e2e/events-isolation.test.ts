// Tenant isolation of the events routes: another site's apps, functions, invocations and task
// ids are refused (404, or 400 "does not exist" for a function id on subscribe), with a control
// request by the owner that succeeds, per route.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { restIsolationTests, graphqlIsolationTests, type IsolationWorlds } from '../support/matrix/isolation.js';
import { buildWorld } from '../support/matrix/world.js';
import { startPlatformIn } from './graphql-fixtures.js';

const A = 'a.iso-events.test';
const B = 'b.iso-events.test';
let t: TestApp;
let tokA: string;
let tokB: string;
let fnB: number;
let invB: { id: number; task: string };
let fnA: number;
let invA: { id: number; task: string };

const code = 'async function main(p) { return 1; }';

async function setup(token: string, host: string, app: string) {
  const f = await t.call('POST', `/api/apps/${app}/functions/`, { token, host, body: { name: 'f', code } });
  const x = await t.call('POST', `/api/apps/${app}/functions/f/execute/`, { token, host, body: {} });
  return { fn: f.body.id as number, inv: { id: x.body.invocation_id as number, task: x.body.task_id as string } };
}

beforeAll(async () => {
  t = await startTestApp();
  const a = await t.createUser();
  const b = await t.createUser();
  tokA = t.tokenFor(a);
  tokB = t.tokenFor(b);
  const orgA = await insertOrg(t.platform, 'iso-ev-a', a.id);
  const orgB = await insertOrg(t.platform, 'iso-ev-b', b.id);
  const siteA = await insertSite(t.platform, orgA.id, 'isoeva', A);
  const siteB = await insertSite(t.platform, orgB.id, 'isoevb', B);
  await insertApp(t.platform, siteA.id, 'appa');
  await insertApp(t.platform, siteB.id, 'appb');
  ({ fn: fnA, inv: invA } = await setup(tokA, A, 'appa'));
  ({ fn: fnB, inv: invB } = await setup(tokB, B, 'appb'));
});

afterAll(() => t?.close());

const cases: [string, string, () => string, () => string, unknown?][] = [
  ['GET', 'functions list', () => '/api/apps/appa/functions/', () => '/api/apps/appb/functions/'],
  ['GET', 'function', () => '/api/apps/appa/functions/f/', () => '/api/apps/appb/functions/f/'],
  ['PATCH', 'function update', () => '/api/apps/appa/functions/f/', () => '/api/apps/appb/functions/f/', { description: 'x' }],
  ['POST', 'execute', () => '/api/apps/appa/functions/f/execute/', () => '/api/apps/appb/functions/f/execute/', {}],
  ['GET', 'app event subscribers', () => '/api/apps/appa/events/RECORD_CREATE/', () => '/api/apps/appb/events/RECORD_CREATE/'],
  ['GET', 'invocation', () => `/api/invocations/${invA.id}/`, () => `/api/invocations/${invB.id}/`],
  ['GET', 'result', () => `/api/result/${invA.task}/`, () => `/api/result/${invB.task}/`],
];

describe.each(cases)('%s %s', (method, _name, own, foreign, body) => {
  it("refuses the other site's resource and serves the owner's", async () => {
    expect((await t.call(method, own(), { token: tokA, host: A, body })).status).toBeLessThan(300);
    const viaOwnHost = await t.call(method, foreign(), { token: tokA, host: A, body });
    expect(viaOwnHost.status).toBe(404);
    const viaOtherHost = await t.call(method, foreign(), { token: tokA, host: B, body });
    expect([403, 404]).toContain(viaOtherHost.status);
  });
});

it("subscribe refuses the other site's function id; the owner's succeeds", async () => {
  const foreign = await t.call('POST', '/api/cloud/events/RECORD_CREATE/subscribe/', { token: tokA, host: A, body: { function_id: fnB } });
  expect(foreign.status).toBe(400);
  expect(foreign.body.message).toMatch(/does not exist/);
  const own = await t.call('POST', '/api/cloud/events/RECORD_CREATE/subscribe/', { token: tokA, host: A, body: { function_id: fnA } });
  expect(own.status).toBe(201);
  const un = await t.call('POST', '/api/cloud/events/RECORD_CREATE/unsubscribe/', { token: tokA, host: A, body: { function_id: fnB } });
  expect(un.status).toBe(400);
});

it("the invocation list shows only this site's runs", async () => {
  const r = await t.call('GET', '/api/invocations/', { token: tokA, host: A });
  expect(r.status).toBe(200);
  expect(r.body.results.map((i: { id: number }) => i.id)).toContain(invA.id);
  expect(r.body.results.every((i: { function: number }) => i.function === fnA)).toBe(true);
  expect((await t.call('GET', `/api/invocations/?function=${fnB}`, { token: tokA, host: A })).body.count).toBe(0);
});

// Probes that reach the check (issue 16 item 3): each a complete request built by the
// permission matrix's fixtures (test/support/matrix/events.ts) against a victim tenant, sent by
// another tenant's owner (404, or 400 "does not exist" for a function id in a body) and then by the victim's owner (must succeed), route by route
// and field by field: another site's functions, runs, invocations, results and subscriptions.
describe.each(['in-process', 'distributed'] as const)('probes that reach the check (%s)', (mode) => {
  let platform: Awaited<ReturnType<typeof startPlatformIn>>;
  let worlds: IsolationWorlds;
  beforeAll(async () => {
    platform = await startPlatformIn(mode);
    worlds = { t: platform.t, attacker: await buildWorld(platform.t, 'atk'), victim: await buildWorld(platform.t, 'vic') };
  }, 180_000);
  afterAll(() => platform?.close());
  if (mode === 'in-process') describe('REST: every object route', () => restIsolationTests('events', () => worlds));
  describe('GraphQL: every Query and Mutation field taking an identifier', () => graphqlIsolationTests('events', () => worlds));
});
