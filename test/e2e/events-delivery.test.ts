// Record and user events delivered to subscribed functions through the outbox and the queue
// (DECISIONS §7): one RECORD_CREATE per record, UPDATE with previous, DELETE with hard, only
// the app's own functions, CEL filters, retries with a dead letter, nothing for a rollback,
// PRE_USER_CREATE blocking in parallel under one deadline.
import { processJob } from '../../subgraphs/events/delivery/delivery.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { invocationsOf, waitFor } from '../support/events.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'dl.events.test';
let t: TestApp;
let owner: string;
let staff: string;

const as = (token = owner) => ({ token, host: HOST });
const fn = async (app: string, body: Record<string, unknown>) => {
  const r = await t.call('POST', `/api/apps/${app}/functions/`, { ...as(), body });
  expect(r.status).toBe(201);
  return r.body.id as number;
};
const subscribe = async (event: string, id: number, filter?: string) => {
  const r = await t.call('POST', `/api/cloud/events/${event}/subscribe/`, {
    ...as(),
    body: { function_id: id, filter_conditions: filter },
  });
  expect(r.status).toBe(201);
};
const DATA = '/api/apps/shop/datatables/orders/data/';
const ECHO = 'async function main(p, u, ctx) { ctx.log(p.type); return p; }';

beforeAll(async () => {
  t = await startTestApp({ EVENTS_RELAY_INTERVAL_MS: '200', EVENTS_PRE_DEADLINE_MS: '1500' });
  const o = await t.createUser();
  owner = t.tokenFor(o);
  staff = t.tokenFor(await t.createUser({ isStaff: true, isSuperuser: true }));
  const org = await insertOrg(t.platform, 'acme-dl', o.id);
  const site = await insertSite(t.platform, org.id, 'dlsite', HOST);
  await insertApp(t.platform, site.id, 'shop');
  await insertApp(t.platform, site.id, 'blog');
  const r = await t.call('POST', '/api/apps/shop/datatables/create_schema/', {
    ...as(),
    body: {
      resources: [
        {
          name: 'orders',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'total', type: 'integer', constraints: { required: true } },
              { name: 'code', type: 'string', constraints: { unique: true } },
            ],
            primaryKey: ['id'],
          },
        },
      ],
    },
  });
  expect(r.status).toBeLessThan(300);
});

afterAll(() => t?.close());

it('fires one RECORD_CREATE per created record (bulk included) to the same app only, with a CEL filter', async () => {
  const all = await fn('shop', { name: 'all-creates', code: ECHO });
  const big = await fn('shop', { name: 'big-creates', code: ECHO });
  const other = await fn('blog', { name: 'blog-creates', code: ECHO });
  await subscribe('RECORD_CREATE', all);
  await subscribe('RECORD_CREATE', big, 'event.datatable == "orders" && event.data.total > 100');
  await subscribe('RECORD_CREATE', other);
  expect((await t.call('POST', DATA, { ...as(), body: { id: 1, total: 50, code: 'a' } })).status).toBe(201);
  expect(
    (
      await t.call('POST', DATA, {
        ...as(),
        body: [
          { id: 2, total: 150, code: 'b' },
          { id: 3, total: 250, code: 'c' },
        ],
      })
    ).status,
  ).toBe(201);
  const done = await waitFor(async () => {
    const rows = await invocationsOf(t.platform, all);
    return rows.length === 3 && rows.every((r) => r.status === 'succeeded') ? rows : null;
  });
  expect(done.map((r) => r.params.record_id).sort()).toEqual(['1', '2', '3']);
  expect(done[0]).toMatchObject({ trigger_type: 'event', event: 'RECORD_CREATE', attempts: 1, deliveries: 1 });
  expect(done[0].params).toMatchObject({ type: 'RECORD_CREATE', app_slug: 'shop', datatable: 'orders', data: { total: 50 } });
  expect(done[0].idempotency_key).toMatch(/^outbox:\d+:\d+$/);
  const filtered = await waitFor(async () => {
    const rows = await invocationsOf(t.platform, big);
    return rows.length === 2 && rows.every((r) => r.status === 'succeeded') ? rows : null;
  });
  expect(filtered.map((r) => r.params.data.total).sort()).toEqual([150, 250]);
  expect(await invocationsOf(t.platform, other)).toHaveLength(0);
  const inv = await t.call('GET', `/api/invocations/?trigger_type=event&function=${all}`, as());
  expect(inv.body.count).toBe(3);
});

it('RECORD_UPDATE carries previous, RECORD_DELETE carries hard', async () => {
  const u = await fn('shop', { name: 'updates', code: ECHO });
  const d = await fn('shop', { name: 'deletes', code: ECHO });
  await subscribe('RECORD_UPDATE', u);
  await subscribe('RECORD_DELETE', d);
  expect((await t.call('PATCH', `${DATA}1/`, { ...as(), body: { total: 60 } })).status).toBe(200);
  expect((await t.call('DELETE', `${DATA}2/`, as())).status).toBeLessThan(300);
  const [up] = await waitFor(async () => {
    const rows = await invocationsOf(t.platform, u);
    return rows.length === 1 && rows[0].status === 'succeeded' ? rows : null;
  });
  expect(up.params).toMatchObject({ type: 'RECORD_UPDATE', record_id: '1', data: { total: 60 }, previous: { total: 50 } });
  const [del] = await waitFor(async () => {
    const rows = await invocationsOf(t.platform, d);
    return rows.length === 1 && rows[0].status === 'succeeded' ? rows : null;
  });
  expect(del.params).toMatchObject({ type: 'RECORD_DELETE', record_id: '2', hard: true });
});

it('a rolled-back write fires nothing', async () => {
  const f = await fn('shop', { name: 'never', code: ECHO });
  await subscribe('RECORD_CREATE', f);
  // The second record violates the unique code: the whole bulk write rolls back.
  const r = await t.call('POST', DATA, {
    ...as(),
    body: [
      { id: 10, total: 1, code: 'x' },
      { id: 11, total: 1, code: 'x' },
    ],
  });
  expect(r.status).toBeGreaterThanOrEqual(400);
  await new Promise((res) => setTimeout(res, 800));
  expect(await invocationsOf(t.platform, f)).toHaveLength(0);
  expect((await t.platform.pool.query('SELECT count(*)::int AS n FROM event_outbox')).rows[0].n).toBe(0);
});

it('retries a failing subscriber three times, then dead-letters it; other subscribers still run', async () => {
  const bad = await fn('shop', { name: 'flaky', code: 'async function main() { throw new Error("down"); }' });
  const good = await fn('shop', { name: 'steady', code: ECHO });
  await subscribe('RECORD_CREATE', bad);
  await subscribe('RECORD_CREATE', good);
  expect((await t.call('POST', DATA, { ...as(), body: { id: 20, total: 5, code: 'r' } })).status).toBe(201);
  const [dead] = await waitFor(
    async () => {
      const rows = await invocationsOf(t.platform, bad);
      return rows.length === 1 && rows[0].dead_letter ? rows : null;
    },
    30_000,
    'dead letter',
  );
  expect(dead).toMatchObject({ status: 'failed', attempts: 3, max_attempts: 3, dead_letter: true, error: expect.stringContaining('down') });
  // Exponential backoff: 500 ms before the second attempt, 1 s before the third.
  expect(dead.finished_at.getTime() - dead.started_at.getTime()).toBeGreaterThanOrEqual(1400);
  expect((await invocationsOf(t.platform, good)).some((r) => r.params.record_id === '20' && r.status === 'succeeded')).toBe(true);
});

it('an event run that keeps timing out is recorded as timed_out and dead-lettered after three attempts', async () => {
  const slow = await fn('shop', { name: 'sleepy', code: 'async function main() { for (;;) {} }', timeout_seconds: 1 });
  await subscribe('RECORD_CREATE', slow, 'event.data.code == "t"');
  expect((await t.call('POST', DATA, { ...as(), body: { id: 30, total: 777, code: 't' } })).status).toBe(201);
  const [row] = await waitFor(
    async () => {
      const rows = await invocationsOf(t.platform, slow);
      return rows.length === 1 && rows[0].dead_letter ? rows : null;
    },
    30_000,
    'timed-out dead letter',
  );
  expect(row).toMatchObject({ status: 'timed_out', attempts: 3, dead_letter: true, error: expect.stringMatching(/did not finish/) });
  const rest = await t.call('GET', `/api/invocations/${row.id}/`, as());
  expect(rest.body).toMatchObject({ status: 'timed_out', dead_letter: true, attempts: 3, max_attempts: 3 });
});

it('a redelivered job is counted, not run again: the idempotency key and deliveries show it', async () => {
  const f = await fn('shop', { name: 'once', code: 'async function main(p, u, ctx) { ctx.log("ran"); return p.record_id; }' });
  await subscribe('RECORD_CREATE', f, 'event.data.code == "o"');
  expect((await t.call('POST', DATA, { ...as(), body: { id: 40, total: 888, code: 'o' } })).status).toBe(201);
  const [first] = await waitFor(async () => {
    const rows = await invocationsOf(t.platform, f);
    return rows.length === 1 && rows[0].status === 'succeeded' ? rows : null;
  });
  // The queue hands the same job over again (as after a worker died before acknowledging it).
  await processJob(t.platform, { siteId: first.site_id, invocationId: first.id });
  const [again] = await invocationsOf(t.platform, f);
  expect(again).toMatchObject({ status: 'succeeded', attempts: 1, deliveries: 2, result: '40', idempotency_key: first.idempotency_key });
  expect(again.logs).toEqual(['ran']);
  const rest = await t.call('GET', `/api/invocations/${first.id}/`, as());
  expect(rest.body).toMatchObject({ deliveries: 2, attempts: 1, idempotency_key: expect.stringMatching(/^outbox:\d+:\d+$/) });
});

it('POST user events reach the functions of the site of the request host, never with a password', async () => {
  const f = await fn('shop', { name: 'users', code: ECHO });
  await subscribe('POST_USER_CREATE', f);
  await subscribe('POST_USER_UPDATE', f);
  const c = await t.call('POST', '/api/users/', {
    ...as(staff),
    body: { username: 'evuser', email: 'ev@example.com', password: 'S3cure-pass-123' },
  });
  expect(c.status).toBe(201);
  expect((await t.call('PATCH', `/api/users/${c.body.slug ?? c.body.uuid}/`, { ...as(staff), body: { first_name: 'Eve' } })).status).toBe(
    200,
  );
  const rows = await waitFor(async () => {
    const r = await invocationsOf(t.platform, f);
    return r.length === 2 && r.every((x) => x.status === 'succeeded') ? r : null;
  });
  expect(rows[0].params).toMatchObject({ type: 'POST_USER_CREATE', user: { username: 'evuser', email: 'ev@example.com' } });
  expect(rows[1].params).toMatchObject({ type: 'POST_USER_UPDATE', user: { first_name: 'Eve' }, previous: { first_name: '' } });
  expect(JSON.stringify(rows)).not.toMatch(/S3cure|password/i);
});

it('PRE_USER_CREATE: subscribers run in parallel under one deadline; the first failure aborts the creation', async () => {
  const ok = await fn('shop', { name: 'pre-ok', code: 'async function main(p) { return true; }' });
  await subscribe('PRE_USER_CREATE', ok);
  const passed = await t.call('POST', '/api/users/', {
    ...as(staff),
    body: { username: 'preok', email: 'preok@example.com', password: 'S3cure-pass-123' },
  });
  expect(passed.status).toBe(201);
  const slow = await fn('shop', { name: 'pre-slow', code: 'async function main() { for(;;){} }' });
  const veto = await fn('shop', {
    name: 'pre-veto',
    code: 'async function main(p) { if (p.user.username.startsWith("bad")) throw new Error("no bad names"); return true; }',
  });
  await subscribe('PRE_USER_CREATE', slow, 'event.user.username.startsWith("slow")');
  await subscribe('PRE_USER_CREATE', veto);
  const started = Date.now();
  const r = await t.call('POST', '/api/users/', {
    ...as(staff),
    body: { username: 'badname', email: 'b@example.com', password: 'S3cure-pass-123' },
  });
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({
    code: 'pre_event_rejected',
    status_code: 400,
    data: { function_id: veto, function_name: 'pre-veto', status: 'failed', task_id: expect.any(String) },
  });
  expect(r.body.detail).toMatch(/no bad names/);
  expect((await t.platform.pool.query(`SELECT count(*)::int AS n FROM users WHERE username = 'badname'`)).rows[0].n).toBe(0);
  // A subscriber that never answers is cut at the deadline (EVENTS_PRE_DEADLINE_MS = 1500 here).
  const s = await t.call('POST', '/api/users/', {
    ...as(staff),
    body: { username: 'slowpoke', email: 's@example.com', password: 'S3cure-pass-123' },
  });
  expect(s.status).toBe(400);
  expect(s.body.data).toMatchObject({ function_id: slow, status: 'timed_out' });
  expect(Date.now() - started).toBeLessThan(20_000);
});
