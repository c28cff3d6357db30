// Hostile function code stays inside its isolate: endless loops, memory bombs, escapes to the
// host's `process`, prototype pollution, huge logs and results; meanwhile the server keeps
// serving other tenants.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'hostile.events.test';
const OTHER = 'calm.events.test';
let t: TestApp;
let owner: string;
let other: string;

const as = (token = owner) => ({ token, host: HOST });
async function run(name: string, code: string, timeout = 2) {
  const c = await t.call('POST', '/api/apps/web/functions/', { ...as(), body: { name, code, timeout_seconds: timeout } });
  expect(c.status).toBe(201);
  return t.call('POST', `/api/apps/web/functions/${c.body.slug}/execute/`, { ...as(), body: { params: {} } });
}

beforeAll(async () => {
  t = await startTestApp();
  const o = await t.createUser();
  const p = await t.createUser();
  owner = t.tokenFor(o);
  other = t.tokenFor(p);
  const org = await insertOrg(t.platform, 'acme-hostile', o.id);
  const site = await insertSite(t.platform, org.id, 'hostile', HOST);
  await insertApp(t.platform, site.id, 'web');
  const org2 = await insertOrg(t.platform, 'acme-calm', p.id);
  const site2 = await insertSite(t.platform, org2.id, 'calm', OTHER);
  await insertApp(t.platform, site2.id, 'web');
});

afterAll(() => t?.close());

it('an endless loop times out while another tenant is served', async () => {
  let spinDone = false;
  const spin = run('spin', 'async function main() { for (;;) {} }', 3).then((r) => {
    spinDone = true;
    return r;
  });
  await new Promise((r) => setTimeout(r, 300));
  const calm = await t.call('GET', '/api/apps/web/functions/', { token: other, host: OTHER });
  expect(calm.status).toBe(200);
  expect(spinDone).toBe(false);
  const r = await spin;
  expect(r.body).toMatchObject({ success: false, status: 'timed_out' });
});

it('a memory bomb is stopped by the heap limit and the isolate is replaced', async () => {
  const r = await run('bomb', 'async function main() { const a = []; for (;;) a.push(new Array(1e6).fill(1)); }', 20);
  expect(r.body.success).toBe(false);
  expect(r.body.error).toMatch(/memory/i);
  const again = await t.call('POST', '/api/apps/web/functions/bomb/execute/', as());
  expect(again.body.success).toBe(false);
});

it('has no way to the host process, modules, network or timers', async () => {
  const r = await run(
    'escape',
    `async function main() {
      const P = (function(){ try { return this.constructor.constructor('return process')(); } catch (e) { return null; } })();
      return {
        process: typeof P === 'object' && P !== null && typeof P.exit === 'function',
        require: typeof require, fetch: typeof fetch, setTimeout: typeof setTimeout, globalProcess: typeof process,
      };
    }`,
  );
  expect(r.body).toMatchObject({
    success: true,
    result: { process: false, require: 'undefined', fetch: 'undefined', setTimeout: 'undefined', globalProcess: 'undefined' },
  });
});

it('prototype pollution stays in the isolate', async () => {
  const r = await run(
    'pollute',
    'async function main(p) { Object.prototype.polluted = "yes"; Array.prototype.push = null; p.__proto__.x = 1; return ({}).polluted; }',
  );
  expect(r.body).toMatchObject({ success: true, result: 'yes' });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const clean = await run('clean', 'async function main() { return ({}).polluted === undefined && typeof [].push === "function"; }');
  expect(clean.body.result).toBe(true);
});

it('huge logs are truncated and huge results refused', async () => {
  const logs = await run(
    'chatty',
    'async function main(p, u, ctx) { for (let i = 0; i < 100000; i++) ctx.log("x".repeat(5000)); return 1; }',
    20,
  );
  expect(logs.body.success).toBe(true);
  expect(logs.body.logs).toHaveLength(201);
  expect(logs.body.logs[0].length).toBeLessThan(2100);
  expect(logs.body.logs[200]).toMatch(/dropped/);
  const big = await run('big', 'async function main() { return "x".repeat(5 * 1024 * 1024); }', 20);
  expect(big.body.success).toBe(false);
  expect(big.body.error).toMatch(/larger than/);
});
