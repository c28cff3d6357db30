// Functions CRUD, execution in the three modes, results and invocations (DECISIONS §7).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sweepPending } from '../../subgraphs/events/delivery/delivery.js';
import { invocationRepository as invocations } from '../../subgraphs/events/invocations/invocation.repository.js';
import { signWebhook } from '../../subgraphs/events/runtime/webhook.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { waitFor } from '../support/events.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'fn.events.test';
let t: TestApp;
let owner: string;
let reader: string;
let executor: string;
let hook: http.Server;
let hookUrl: string;
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];

const as = (token = owner) => ({ token, host: HOST });
const FNS = '/api/apps/web/functions/';
const create = (body: unknown, token = owner) => t.call('POST', FNS, { ...as(token), body });
const execute = (slug: string, body: unknown, token = owner) => t.call('POST', `${FNS}${slug}/execute/`, { ...as(token), body });

beforeAll(async () => {
  hook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      if (req.url === '/slow') return void setTimeout(() => res.end('{}'), 3000);
      if (req.url === '/fail') return void res.writeHead(500).end('nope');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ got: JSON.parse(body) }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  t = await startTestApp({ EVENTS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  const o = await t.createUser();
  const r = await t.createUser();
  const x = await t.createUser();
  owner = t.tokenFor(o);
  reader = t.tokenFor(r);
  executor = t.tokenFor(x);
  const org = await insertOrg(t.platform, 'acme-fn', o.id);
  const site = await insertSite(t.platform, org.id, 'fnsite', HOST);
  await insertApp(t.platform, site.id, 'web');
  const member = `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', $3)`;
  await t.platform.pool.query(member, [org.id, r.id, '{view_site,functions:read}']);
  await t.platform.pool.query(member, [org.id, x.id, '{view_site,functions:execute}']);
});

afterAll(async () => {
  await t?.close();
  hook?.close();
});

describe('functions CRUD', () => {
  it('creates, reads, lists, updates and deletes a function', async () => {
    const code = 'async function main(params, user, ctx) { ctx.log("hi", params.n); return { double: params.n * 2 }; }';
    const c = await create({ name: 'Double It', code, description: 'x2' });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ name: 'Double It', slug: 'double-it', execution_mode: 'app', timeout_seconds: 300, is_active: true });
    expect(typeof c.body.id).toBe('number');
    expect(c.body.webhook_secret).toBeUndefined();
    const g = await t.call('GET', `${FNS}double-it/`, as(reader));
    expect(g.status).toBe(200);
    expect(g.body.code).toBe(code);
    const l = await t.call('GET', FNS, as(reader));
    expect(l.body).toMatchObject({ count: 1, next: null, previous: null });
    const p = await t.call('PATCH', `${FNS}double-it/`, { ...as(), body: { timeout_seconds: 5 } });
    expect(p.status).toBe(200);
    expect(p.body.timeout_seconds).toBe(5);
    const put = await t.call('PUT', `${FNS}double-it/`, { ...as(), body: { name: 'Double It', code } });
    expect(put.body.timeout_seconds).toBe(300);
    const d = await t.call('DELETE', `${FNS}double-it/`, as());
    expect(d.status).toBe(204);
    expect((await t.call('GET', `${FNS}double-it/`, as())).status).toBe(404);
  });

  it('refuses bad input with field errors, never a 500', async () => {
    const r = await create({ name: '', execution_mode: 'magic', timeout_seconds: 9999, headers: { 'bad name': 'x' } });
    expect(r.status).toBe(400);
    expect(r.body.status).toBe('error');
    expect(Object.keys(r.body.errors).sort()).toEqual(['execution_mode', 'headers', 'name', 'timeout_seconds']);
    expect((await create({ name: 'no code' })).body.errors.code).toBeDefined();
    expect((await create({ name: 'p', execution_mode: 'proxy' })).body.errors.webhook_url).toBeDefined();
    expect((await create({ name: 'f', code: 'x', filter_conditions: 'event.a ==' })).body.errors.filter_conditions[0]).toMatch(/CEL/);
    expect((await create({ name: 'big', code: 'x'.repeat(300 * 1024) })).status).toBe(400);
    expect((await create('nope')).status).toBe(400);
  });

  it('needs functions:read to read and functions:write to write', async () => {
    expect((await create({ name: 'r', code: 'async function main(){}' }, reader)).status).toBe(403);
    expect((await t.call('GET', FNS, as(executor))).status).toBe(403);
    expect((await t.call('GET', FNS, { host: HOST })).status).toBe(401);
    expect((await t.call('GET', '/api/apps/nope/functions/', as())).status).toBe(404);
  });
});

describe('execute', () => {
  it('runs app code synchronously with logs, and asynchronously through the queue', async () => {
    await create({
      name: 'calc',
      code: 'async function main(p, user, ctx) { ctx.log("n is", p.n); return { v: p.n + 1, who: user.username }; }',
    });
    const s = await execute('calc', { params: { n: 41 } }, executor);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ success: true, result: { v: 42 }, logs: ['n is 41'] });
    expect(typeof s.body.result.who).toBe('string');
    const a = await execute('calc', { params: { n: 1 }, async: true });
    expect(a.status).toBe(202);
    expect(a.body).toEqual({ task_id: expect.any(String), invocation_id: expect.any(Number) });
    const done = await waitFor(async () => {
      const r = await t.call('GET', `/api/result/${a.body.task_id}/`, as(reader));
      return r.body.ready ? r : null;
    });
    expect(done.body).toMatchObject({ status: 'succeeded', success: true, result: { v: 2 } });
    const inv = await t.call('GET', `/api/invocations/${a.body.invocation_id}/`, as(reader));
    expect(inv.body).toMatchObject({
      id: a.body.invocation_id,
      trigger_type: 'api',
      status: 'succeeded',
      task_id: a.body.task_id,
      params: { n: 1 },
    });
    for (const k of ['function', 'event', 'result', 'error', 'logs', 'started_at', 'finished_at', 'duration_ms'])
      expect(inv.body).toHaveProperty(k);
    const list = await t.call('GET', '/api/invocations/?trigger_type=api&status=succeeded', as(reader));
    expect(list.body.count).toBeGreaterThanOrEqual(2);
    expect((await t.call('GET', '/api/invocations/?status=bogus', as(reader))).status).toBe(400);
    expect((await execute('calc', {}, reader)).status).toBe(403);
  });

  it('an async run whose job was lost is run again by the sweep, with its caller as `user`', async () => {
    await create({ name: 'whoami', code: 'async function main(p, user) { return { who: user && user.username }; }' });
    const f = await t.call('GET', `${FNS}whoami/`, as());
    const site = (await t.platform.pool.query(`SELECT site_id FROM event_functions WHERE id = $1`, [f.body.id])).rows[0].site_id;
    const me = await t.call('GET', '/api/users/me/', as(executor));
    // What `execute … async` stores before it enqueues; the job itself never reaches the queue.
    const inv = (await invocations.create(t.platform.pool, {
      siteId: site,
      functionId: f.body.id,
      triggerType: 'api',
      event: null,
      params: {},
      maxAttempts: 1,
      caller: { uuid: me.body.uuid, username: me.body.username, is_staff: false, is_superuser: false },
    }))!;
    expect(await sweepPending(t.platform, 0)).toBeGreaterThanOrEqual(1);
    const done = await waitFor(async () => {
      const r = await t.call('GET', `/api/result/${inv.task_id}/`, as());
      return r.body.ready ? r : null;
    });
    expect(done.body).toMatchObject({ status: 'succeeded', result: { who: me.body.username } });
    // execute … async keeps the caller with the row (identity only).
    const a = await execute('whoami', { async: true }, executor);
    const row = (await t.platform.pool.query(`SELECT caller FROM event_invocations WHERE id = $1`, [a.body.invocation_id])).rows[0];
    expect(row.caller).toEqual({ uuid: me.body.uuid, username: me.body.username, is_staff: false, is_superuser: false });
  });

  it('reports failures, time-outs and non-JSON results', async () => {
    await create({ name: 'boom', code: 'async function main() { throw new Error("bad input"); }' });
    const b = await execute('boom', {});
    expect(b.body).toMatchObject({ success: false, status: 'failed', error: expect.stringContaining('bad input') });
    await create({ name: 'spin', timeout_seconds: 1, code: 'async function main() { for(;;){} }' });
    const s = await execute('spin', {});
    expect(s.body).toMatchObject({ success: false, status: 'timed_out' });
    await create({ name: 'fnres', code: 'async function main() { return () => 1; }' });
    expect((await execute('fnres', {})).body.success).toBe(false);
    await create({ name: 'nomain', code: 'const x = 1;' });
    expect((await execute('nomain', {})).body.error).toMatch(/main/);
  });

  it('proxy mode posts the params signed with the Standard Webhooks scheme', async () => {
    const c = await create({ name: 'hook', execution_mode: 'proxy', webhook_url: `${hookUrl}/ok`, headers: { 'X-Token': 'abc' } });
    expect(c.status).toBe(201);
    const secret = c.body.webhook_secret;
    expect(secret).toMatch(/^whsec_/);
    expect((await t.call('GET', `${FNS}hook/`, as())).body.webhook_secret).toBeUndefined();
    const r = await execute('hook', { params: { a: 1 } });
    expect(r.body).toMatchObject({ success: true, result: { got: { a: 1 } } });
    const last = received[received.length - 1];
    expect(last.headers['x-token']).toBe('abc');
    const id = last.headers['webhook-id'] as string;
    const ts = Number(last.headers['webhook-timestamp']);
    expect(last.headers['webhook-signature']).toBe(signWebhook(secret, id, ts, last.body));
    await create({ name: 'hookfail', execution_mode: 'proxy', webhook_url: `${hookUrl}/fail` });
    expect((await execute('hookfail', {})).body).toMatchObject({ success: false, status: 'failed' });
    await create({ name: 'hookslow', execution_mode: 'proxy', webhook_url: `${hookUrl}/slow`, timeout_seconds: 1 });
    expect((await execute('hookslow', {})).body).toMatchObject({ success: false, status: 'timed_out' });
  });

  it('proxy mode refuses private and loopback addresses not on the allow-list', async () => {
    for (const url of ['http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:1/', 'http://127.1.2.3:1/']) {
      const slug = 'ssrf-' + received.length + Math.floor(Math.random() * 1e6);
      await create({ name: slug, execution_mode: 'proxy', webhook_url: url, timeout_seconds: 2 });
      const r = await execute(slug, {});
      expect(r.body.success).toBe(false);
      expect(r.body.error).toMatch(/not a public address/);
    }
  });

  it('system mode runs a built-in function', async () => {
    const bad = await create({ name: 'sys', execution_mode: 'system', system_function: 'nope' });
    expect(bad.status).toBe(400);
    await create({ name: 'mail', execution_mode: 'system', system_function: 'send_email' });
    const m = await execute('mail', { params: { to: 'a@example.com', subject: 'Hi', text: 'Hello' } });
    expect(m.body).toMatchObject({ success: true, result: { sent: false, recipients: 1 } });
    const bm = await execute('mail', { params: { to: 'not-an-address', subject: 'Hi', text: '' } });
    expect(bm.body.success).toBe(false);
  });
});
