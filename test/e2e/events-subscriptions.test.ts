// Event names and subscriptions (seed 3 "Events": endpoints, errors, permissions).
import { EVENT_NAMES } from '../../subgraphs/events/event-names.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'sub.events.test';
let t: TestApp;
let owner: string;
let writer: string;
let outsider: string;
let admin: string;
let viewer: string;
let fnA: number;
let fnB: number;

const as = (token = owner) => ({ token, host: HOST });
const sub = (event: string, body: unknown, token = owner) =>
  t.call('POST', `/api/cloud/events/${event}/subscribe/`, { ...as(token), body });
const unsub = (event: string, body: unknown, token = owner) =>
  t.call('POST', `/api/cloud/events/${event}/unsubscribe/`, { ...as(token), body });

beforeAll(async () => {
  t = await startTestApp();
  const o = await t.createUser();
  const w = await t.createUser();
  const x = await t.createUser();
  owner = t.tokenFor(o);
  writer = t.tokenFor(w);
  outsider = t.tokenFor(x);
  const org = await insertOrg(t.platform, 'acme-sub', o.id);
  const site = await insertSite(t.platform, org.id, 'subsite', HOST);
  await insertApp(t.platform, site.id, 'web');
  await insertApp(t.platform, site.id, 'other');
  await t.platform.pool.query(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`, [
    org.id,
    w.id,
    '{view_site,functions:write}',
  ]);
  // A site admin (manage_site, granted on the organization) and a member who may only view the site.
  const a = await t.createUser();
  const v = await t.createUser();
  admin = t.tokenFor(a);
  viewer = t.tokenFor(v);
  await t.platform.pool.query(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`, [
    org.id,
    a.id,
    '{view_site,manage_site}',
  ]);
  await t.platform.pool.query(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`, [
    org.id,
    v.id,
    '{view_site}',
  ]);
  const code = 'async function main(p) { return p; }';
  fnA = (await t.call('POST', '/api/apps/web/functions/', { ...as(), body: { name: 'a', code } })).body.id;
  fnB = (await t.call('POST', '/api/apps/other/functions/', { ...as(), body: { name: 'b', code } })).body.id;
});

afterAll(() => t?.close());

it('lists the seven event names to any signed-in caller, on any host', async () => {
  const r = await t.call('GET', '/api/cloud/events/', { token: outsider });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ status: 'success', data: { events: [...EVENT_NAMES] } });
  expect(r.body.data.events).toHaveLength(7);
  expect((await t.call('GET', '/api/cloud/events/')).status).toBe(401);
});

it('subscribes, refuses a second subscription, lists the app subscribers and unsubscribes', async () => {
  const s = await sub('RECORD_CREATE', { function_id: fnA }, writer);
  expect(s.status).toBe(201);
  expect(s.body).toMatchObject({
    status: 'success',
    data: { event: 'RECORD_CREATE', function: fnA, function_name: 'a', function_slug: 'a', app_slug: 'web', app_name: 'Web' },
  });
  const again = await sub('RECORD_CREATE', { function_id: fnA });
  expect(again.status).toBe(400);
  expect(again.body.message).toMatch(/"a".*RECORD_CREATE/);
  await sub('RECORD_CREATE', { function_id: fnB });
  const list = await t.call('GET', '/api/apps/web/events/RECORD_CREATE/', as());
  expect(list.status).toBe(200);
  expect(list.body.data).toMatchObject({ event: 'RECORD_CREATE', app: { slug: 'web', name: 'Web' }, total_subscribers: 1 });
  expect(list.body.data.subscribers[0]).toMatchObject({ function_id: fnA, function_slug: 'a', app_slug: 'web', filter_conditions: null });
  const u = await unsub('RECORD_CREATE', { function_id: fnA });
  expect(u.status).toBe(200);
  expect(u.body).toMatchObject({ status: 'success', data: {} });
  const u2 = await unsub('RECORD_CREATE', { function_id: fnA });
  expect(u2.status).toBe(404);
  expect(u2.body).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
});

it('answers the error table of the seed', async () => {
  const bad = await sub('record_create', { function_id: fnA });
  expect(bad.status).toBe(400);
  expect(bad.body.message).toMatch(/Invalid event type.*RECORD_CREATE/);
  expect((await sub('RECORD_CREATE', { function_id: 999999 })).body.message).toMatch(/does not exist/);
  expect((await sub('RECORD_CREATE', { function_id: 'x' })).status).toBe(400);
  expect((await sub('RECORD_CREATE', null)).status).toBe(400);
  expect((await t.call('GET', '/api/apps/nope/events/RECORD_CREATE/', as())).status).toBe(404);
  expect((await t.call('GET', '/api/apps/web/events/NOPE/', as())).status).toBe(400);
  expect((await t.call('GET', '/api/apps/web/events/RECORD_CREATE/', as(outsider))).status).toBe(403);
  expect((await sub('RECORD_CREATE', { function_id: fnA }, outsider)).status).toBe(403);
  expect((await t.call('POST', '/api/cloud/events/RECORD_CREATE/subscribe/', { token: owner, body: { function_id: fnA } })).status).toBe(
    400,
  );
});

it('takes filter_conditions on subscribe and refuses an invalid CEL expression with 400', async () => {
  const bad = await sub('RECORD_UPDATE', { function_id: fnA, filter_conditions: 'event.data.total >' });
  expect(bad.status).toBe(400);
  expect(bad.body.message).toMatch(/CEL/);
  const ok = await sub('RECORD_UPDATE', { function_id: fnA, filter_conditions: 'event.datatable == "orders"' });
  expect(ok.status).toBe(201);
  const list = await t.call('GET', '/api/apps/web/events/RECORD_UPDATE/', as());
  expect(list.body.data.subscribers[0].filter_conditions).toBe('event.datatable == "orders"');
});

it('owners, admins (manage_site) and holders of functions:write may subscribe and list; a member who only views the site may not', async () => {
  expect((await sub('POST_USER_DELETE', { function_id: fnA }, admin)).status).toBe(201);
  expect((await t.call('GET', '/api/apps/web/events/POST_USER_DELETE/', as(admin))).body.data.total_subscribers).toBe(1);
  expect((await t.call('GET', '/api/apps/web/events/POST_USER_DELETE/', as(writer))).status).toBe(200);
  expect((await t.call('GET', '/api/apps/web/events/POST_USER_DELETE/', as(viewer))).status).toBe(403);
  expect((await sub('POST_USER_UPDATE', { function_id: fnA }, viewer)).status).toBe(403);
  expect((await unsub('POST_USER_DELETE', { function_id: fnA }, viewer)).status).toBe(403);
  expect((await unsub('POST_USER_DELETE', { function_id: fnA }, admin)).status).toBe(200);
  expect((await t.call('GET', '/api/cloud/events/', { token: viewer })).status).toBe(200);
});

it('a refused second subscription leaves the function filter as it was', async () => {
  expect((await sub('RECORD_DELETE', { function_id: fnB, filter_conditions: 'event.hard == true' })).status).toBe(201);
  const again = await sub('RECORD_DELETE', { function_id: fnB, filter_conditions: 'event.hard == false' });
  expect(again.status).toBe(400);
  const list = await t.call('GET', '/api/apps/other/events/RECORD_DELETE/', as());
  expect(list.body.data.subscribers[0].filter_conditions).toBe('event.hard == true');
});
