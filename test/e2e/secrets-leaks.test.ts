// No leaks (issue 5 item 8): a whole secrets flow — create, read, list, replace, delete,
// history, resolution and errors, including schema-validation failures — runs with every log
// line captured (at trace level, the most talkative), and then the logs, every error body
// and every history record are searched for every value written.
import { startTestApp, type TestApp, type CallResult } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { resolveSecretReference } from '../../subgraphs/secrets/resolve.service.js';
import type { RequestContext } from '../../subgraphs/core/context.js';

const HOST = 'leaks.secrets.test';
// Every value written in this file contains this marker, and only values do.
const M = 'Zq9LEAKMARK';
const v = (n: string) => `${M}-${n}`;

let t: TestApp;
let ownerTok: string, outsiderTok: string;
const errorBodies: CallResult[] = [];

async function call(method: string, url: string, opts: { token?: string; body?: unknown } = {}): Promise<CallResult> {
  const res = await t.call(method, url, { host: HOST, ...opts });
  if (res.status >= 400) errorBodies.push(res);
  return res;
}

beforeAll(async () => {
  t = await startTestApp({ LOG_LEVEL: 'trace' });
  const [owner, outsider] = await Promise.all([t.createUser(), t.createUser()]);
  [ownerTok, outsiderTok] = [owner, outsider].map((u) => t.tokenFor(u));
  const org = await insertOrg(t.platform, 'leaky', owner.id);
  const site = await insertSite(t.platform, org.id, 'leaky', HOST);
  const app = await insertApp(t.platform, site.id, 'web');

  const o = (method: string, url: string, body?: unknown) => call(method, url, { token: ownerTok, body });
  await o('POST', '/api/secret-types/', { name: 'Plain', sensitivity_level: 'public', schema: { type: 'object' } });
  await o('POST', '/api/tags/', { name: 'ops' });
  // Creates at every sensitivity and both tiers.
  expect((await o('POST', '/api/secrets/', { secret_type: 'plain', key: 'pub', value: { url: v('public') } })).status).toBe(201);
  expect(
    (
      await o('POST', '/api/secrets/', {
        secret_type: 'basic-auth',
        key: 'priv',
        value: { username: v('user'), password: v('private') },
        tags: ['ops'],
      })
    ).status,
  ).toBe(201);
  expect(
    (await o('POST', '/api/apps/web/secrets/', { key: 'sens', type_slug: 'api-key', value: { api_key: v('sensitive') } })).status,
  ).toBe(201);
  // Reads, lists, resolution.
  for (const url of ['/api/secrets/priv/', '/api/secrets/sens/?app=web', '/api/secrets/', '/api/secrets/?app=web&search=sen']) {
    expect((await o('GET', url)).status).toBe(200);
  }
  const ctx = {
    requestId: 'leak',
    principal: { kind: 'anonymous' },
    host: HOST,
    baseUrl: `http://${HOST}`,
    platform: t.platform,
    log: t.platform.log,
    site: {
      id: site.id,
      uuid: site.uuid,
      slug: 'leaky',
      name: 'leaky',
      schemaName: 'leaky',
      organizationId: org.id,
      environment: 'production',
    },
  } as RequestContext;
  expect(await resolveSecretReference(ctx, app.id, 'secret.sens.api_key')).toBe(v('sensitive'));
  await expect(resolveSecretReference(ctx, app.id, 'secret.priv.missing')).rejects.toMatchObject({ status: 404 });
  // Errors carrying values in their request: schema failures, duplicates, bad tags, no access.
  expect(
    (
      await o('POST', '/api/secrets/', {
        secret_type: 'basic-auth',
        key: 'bad',
        value: { username: v('bad-user'), password: { deep: v('bad-pw') } },
      })
    ).status,
  ).toBe(400);
  expect(
    (await o('POST', '/api/secrets/', { secret_type: 'api-key', key: 'bad2', value: { api_key: 42, extra: v('extra') } })).status,
  ).toBe(400);
  expect(
    (await o('POST', '/api/secrets/', { secret_type: 'basic-auth', key: 'priv', value: { username: 'u', password: v('dup') } })).status,
  ).toBe(409);
  expect((await o('POST', '/api/secrets/', { secret_type: 'json', key: 'tagged', value: { x: v('tag') }, tags: ['nope'] })).status).toBe(
    400,
  );
  expect((await o('PUT', '/api/secrets/priv/', { secret_type: 'basic-auth', value: { password: v('put-bad') } })).status).toBe(400);
  expect((await call('GET', '/api/secrets/priv/')).status).toBe(401);
  expect((await call('GET', '/api/secrets/priv/', { token: outsiderTok })).status).toBe(403);
  expect(
    (await call('POST', '/api/secrets/', { token: outsiderTok, body: { secret_type: 'json', key: 'o', value: { x: v('outsider') } } }))
      .status,
  ).toBe(403);
  expect((await o('GET', '/api/secrets/priv/?tags=nope')).status).toBe(404);
  expect((await o('POST', '/api/secrets/', { secret_type: 'json', key: 'not valid', value: { x: v('badkey') } })).status).toBe(400);
  // Replace (also the type and the key) and delete.
  expect(
    (await o('PUT', '/api/secrets/priv/', { secret_type: 'json', key: 'priv2', value: { password: v('replaced') }, tags: [] })).status,
  ).toBe(200);
  expect((await o('PUT', '/api/secrets/pub/', { secret_type: 'plain', value: { url: v('public2') } })).status).toBe(200);
  expect((await o('DELETE', '/api/secrets/sens/?app=web')).status).toBe(200);
  expect((await o('DELETE', '/api/secrets/pub/')).status).toBe(200);
  expect((await o('GET', '/api/secrets/priv2/history/')).status).toBe(200);
  expect((await o('GET', '/api/secrets/sens/history/?app=web')).status).toBe(200);
});
afterAll(() => t.close());

test('the flow logged requests (the capture works)', () => {
  expect(t.logs.length).toBeGreaterThan(20);
  expect(t.logs.join('\n')).toContain('/api/secrets/');
});

test('no log line contains a value', () => {
  const leaking = t.logs.filter((line) => line.includes(M));
  expect(leaking).toEqual([]);
});

test('no error body contains a value, and schema failures name fields only', () => {
  expect(errorBodies.length).toBeGreaterThanOrEqual(10);
  for (const res of errorBodies) expect(res.text).not.toContain(M);
  const schema = errorBodies.filter((r) => r.body?.error === 'Schema validation failed');
  expect(schema.length).toBeGreaterThanOrEqual(3);
});

test('no history record contains a value', async () => {
  const { rows } = await t.platform.pool.query('SELECT * FROM secret_history');
  expect(rows.length).toBe(7); // 3 creates, 2 replaces, 2 deletes
  expect(JSON.stringify(rows)).not.toContain(M);
  const h = await t.call('GET', '/api/secrets/priv2/history/', { token: ownerTok, host: HOST });
  expect(h.text).not.toContain(M);
});

test('private and sensitive values are not stored in plain text', async () => {
  const { rows } = await t.platform.pool.query('SELECT value_plain, ciphertext FROM secrets WHERE value_plain IS NULL');
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) expect(r.ciphertext.toString('latin1')).not.toContain(M);
});
