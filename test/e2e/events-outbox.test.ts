// The outbox holds only events some function subscribes to, and a write that put rows in it
// relays them on commit. The periodic relay is set to ten minutes here, so every delivery in
// this file comes from the commit's own relay.
import { startTestApp, type TestApp } from '../support/app.js';
import { invocationsOf, waitFor } from '../support/events.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'ob.events.test';
const DATA = '/api/apps/shop/datatables/notes/data/';
const ECHO = 'async function main(p) { return p.type; }';
let t: TestApp;
let owner: string;
let staff: string;
let siteId: number;
let onDelete: number;

const as = (token = owner) => ({ token, host: HOST });
const outboxRows = async () =>
  (await t.platform.pool.query(`SELECT event FROM event_outbox WHERE site_id = $1`, [siteId])).rows.map((r) => r.event as string);

beforeAll(async () => {
  t = await startTestApp({ EVENTS_RELAY_INTERVAL_MS: '600000' });
  const o = await t.createUser();
  owner = t.tokenFor(o);
  staff = t.tokenFor(await t.createUser({ isStaff: true, isSuperuser: true }));
  const org = await insertOrg(t.platform, 'acme-ob', o.id);
  const site = await insertSite(t.platform, org.id, 'obsite', HOST);
  siteId = site.id;
  await insertApp(t.platform, site.id, 'shop');
  const r = await t.call('POST', '/api/apps/shop/datatables/create_schema/', {
    ...as(),
    body: { resources: [{ name: 'notes', schema: { fields: [{ name: 'text', type: 'string' }] } }] },
  });
  expect(r.status).toBeLessThan(300);
});

afterAll(() => t?.close());

it('a write nobody subscribes to leaves nothing in the outbox', async () => {
  const f = await t.call('POST', '/api/apps/shop/functions/', { ...as(), body: { name: 'on-delete', code: ECHO } });
  expect(f.status).toBe(201);
  onDelete = f.body.id;
  expect((await t.call('POST', '/api/cloud/events/RECORD_DELETE/subscribe/', { ...as(), body: { function_id: onDelete } })).status).toBe(
    201,
  );
  const w = await t.call('POST', DATA, { ...as(), body: [{ text: 'a' }, { text: 'b' }] });
  expect(w.status).toBe(201);
  expect(await outboxRows()).toEqual([]);
  expect(await invocationsOf(t.platform, f.body.id)).toEqual([]);
});

it('a subscribed record write is delivered by the relay its commit starts', async () => {
  const f = await t.call('POST', '/api/apps/shop/functions/', { ...as(), body: { name: 'on-create', code: ECHO } });
  expect((await t.call('POST', '/api/cloud/events/RECORD_CREATE/subscribe/', { ...as(), body: { function_id: f.body.id } })).status).toBe(
    201,
  );
  expect((await t.call('POST', DATA, { ...as(), body: [{ text: 'c' }, { text: 'd' }] })).status).toBe(201);
  const rows = await waitFor(async () => {
    const r = await invocationsOf(t.platform, f.body.id);
    return r.length === 2 && r.every((x) => x.status === 'succeeded') ? r : null;
  });
  expect(rows.map((r) => r.params.data.text).sort()).toEqual(['c', 'd']);
  // The delete goes to the first test's function only, and leaves the outbox empty once relayed.
  const id = rows[0].params.record_id;
  expect((await t.call('DELETE', `${DATA}${id}/`, as())).status).toBeLessThan(300);
  const deleted = await waitFor(async () => {
    const r = await invocationsOf(t.platform, onDelete);
    return r.length === 1 && r[0].status === 'succeeded' ? r : null;
  });
  expect(deleted[0].params).toMatchObject({ type: 'RECORD_DELETE', record_id: id });
  await waitFor(async () => (await outboxRows()).length === 0, 15_000, 'an empty outbox');
  expect(await invocationsOf(t.platform, f.body.id)).toHaveLength(2);
});

it('a subscribed user event is delivered by the relay its commit starts', async () => {
  const f = await t.call('POST', '/api/apps/shop/functions/', { ...as(), body: { name: 'on-user', code: ECHO } });
  expect(
    (await t.call('POST', '/api/cloud/events/POST_USER_CREATE/subscribe/', { ...as(), body: { function_id: f.body.id } })).status,
  ).toBe(201);
  const c = await t.call('POST', '/api/users/', {
    ...as(staff),
    body: { username: 'obuser', email: 'ob@example.com', password: 'S3cure-pass-123' },
  });
  expect(c.status).toBe(201);
  const rows = await waitFor(async () => {
    const r = await invocationsOf(t.platform, f.body.id);
    return r.length === 1 && r[0].status === 'succeeded' ? r : null;
  });
  expect(rows[0].params).toMatchObject({ type: 'POST_USER_CREATE', user: { username: 'obuser' } });
});
