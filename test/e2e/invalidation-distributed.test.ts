// Caches across processes (issue 9, item 3): the tenancy subgraph runs as its own process
// (`subgraphs/serve.ts`, as `npm run start:subgraph` starts it); a GraphQL mutation executed
// there revokes an API key or deactivates a user, and the gateway process, which has both
// cached, refuses them within one second. The gateway's caches live 15 s, so only the
// LISTEN/NOTIFY invalidation can make the refusal that fast.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../subgraphs/core/embedded-postgres.js';
import { apiKeyFormat } from '../../subgraphs/tenancy/api-key-format.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type CallResult, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const ROOT = process.cwd();
const HOST = 'inv.localhost';
const WINDOW_MS = 1000;

let t: TestApp;
let child: ChildProcess;
let childOutput = '';
let owner: User;
let staff: User;
let appId: number;

async function waitForHealth(port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`subgraph process exited: ${childOutput}`);
    if (Date.now() > deadline) throw new Error(`subgraph process did not start: ${childOutput}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Repeats `probe` until `refused` says so; the milliseconds it took, or null after `limitMs`. */
async function msUntil(probe: () => Promise<CallResult>, refused: (r: CallResult) => boolean, limitMs: number): Promise<number | null> {
  const start = Date.now();
  while (Date.now() - start < limitMs) {
    if (refused(await probe())) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

beforeAll(async () => {
  const port = await freePort();
  t = await startTestApp({ SUBGRAPH_TENANCY_URL: `http://127.0.0.1:${port}/graphql` });
  child = spawn(process.execPath, ['--import', 'tsx', 'subgraphs/serve.ts', 'tenancy', '--port', String(port)], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: t.platform.config.databaseUrl!,
      // The same data directory: the subgraph reads the gateway's signing secret from it.
      DATA_DIR: t.platform.config.dataDir,
      LOG_LEVEL: 'warn',
      SUBGRAPH_TENANCY_URL: `http://127.0.0.1:${port}/graphql`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (childOutput += d));
  child.stderr!.on('data', (d) => (childOutput += d));
  await waitForHealth(port);

  owner = await t.createUser();
  staff = await t.createUser({ isStaff: true, isSuperuser: true });
  const org = await insertOrg(t.platform, 'inv-org', owner.id);
  const site = await insertSite(t.platform, org.id, 'inv-site', HOST);
  appId = (await insertApp(t.platform, site.id, 'shop')).id;
}, 90_000);

afterAll(async () => {
  // The last test kills it (a killed process has a signalCode and no exitCode).
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await t?.close();
});

test('the gateway reaches the tenancy subgraph process over HTTP', async () => {
  const res = await t.call('POST', '/graphql', { body: { query: '{ me { id } }' }, token: t.tokenFor(owner) });
  expect(res.body.data).toEqual({ me: { id: owner.uuid } });
});

test('an API key revoked through GraphQL in the subgraph process is refused at the gateway within one second', async () => {
  const key = apiKeyFormat.generate();
  const { rows } = await t.platform.pool.query('INSERT INTO api_keys (app_id, prefix, key_hash) VALUES ($1, $2, $3) RETURNING id', [
    appId,
    key.prefix,
    key.hash,
  ]);
  const probe = () => t.call('GET', '/api/apps/shop/datatables/', { host: HOST, headers: { authorization: `Api-Key ${key.key}` } });
  // Accepted, and now in the gateway's API-key cache.
  expect((await probe()).status).toBe(200);
  expect((await probe()).status).toBe(200);

  const revoked = await t.call('POST', '/graphql', {
    host: HOST,
    token: t.tokenFor(owner),
    body: { query: 'mutation ($id: ID!) { revokeApiKey(app: "shop", id: $id) { revokedAt } }', variables: { id: String(rows[0].id) } },
  });
  expect(revoked.body.errors).toBeUndefined();

  const ms = await msUntil(probe, (r) => r.status === 401, 5_000);
  expect(ms).not.toBeNull();
  expect(ms!).toBeLessThan(WINDOW_MS);
});

test('a user deactivated through GraphQL in the subgraph process is refused at the gateway within one second', async () => {
  const victim = await t.createUser();
  const token = t.tokenFor(victim);
  const probe = () => t.call('GET', '/api/users/me/', { token });
  expect((await probe()).status).toBe(200);
  expect((await probe()).status).toBe(200);

  const res = await t.call('POST', '/graphql', {
    token: t.tokenFor(staff),
    body: {
      query: 'mutation ($slug: String!) { updateUser(slug: $slug, input: { isActive: false }) { isActive } }',
      variables: { slug: victim.slug },
    },
  });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.updateUser).toEqual({ isActive: false });

  const ms = await msUntil(probe, (r) => r.status === 401, 5_000);
  expect(ms).not.toBeNull();
  expect(ms!).toBeLessThan(WINDOW_MS);
});

test('the subgraph process killed: /readyz answers 503 naming it, GraphQL answers 503 service_unavailable', async () => {
  const before = await t.call('GET', '/readyz');
  expect(before.status).toBe(200);
  expect(before.body.checks).toEqual({ database: 'ok', 'subgraph:tenancy': 'ok' });
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;

  const ready = await t.call('GET', '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body).toEqual({
    status: 'unavailable',
    detail: 'Not ready: subgraph:tenancy down.',
    checks: { database: 'ok', 'subgraph:tenancy': 'down' },
  });
  const res = await t.call('POST', '/graphql', { body: { query: '{ me { id } }' }, token: t.tokenFor(owner) });
  expect(res.status).toBe(503);
  expect(res.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'service_unavailable', status: 503 } })]);
  expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
});
