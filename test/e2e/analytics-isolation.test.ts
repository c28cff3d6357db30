// Tenant isolation of analytics: another site's queries are 404 on every route (with a control
// request by the owner that succeeds), and an internal query of one site cannot read another
// site's tables, their names in information_schema, pg_authid or server files, whether the
// parser or the site's database role is what stops it.
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { restIsolationTests, graphqlIsolationTests, type IsolationWorlds } from '../support/matrix/isolation.js';
import { buildWorld } from '../support/matrix/world.js';
import { startPlatformIn } from './graphql-fixtures.js';
import { runInternal } from '../../subgraphs/analytics/engines/internal.js';

const A = 'a.analytics-iso.test';
const B = 'b.analytics-iso.test';
const BASE = '/api/apps/web/analytics/queries/';

let t: TestApp;
let tokA: string, tokB: string;
let siteB: { id: number };

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;

beforeAll(async () => {
  t = await startTestApp();
  const ua = await t.createUser();
  const ub = await t.createUser();
  [tokA, tokB] = [t.tokenFor(ua), t.tokenFor(ub)];
  const orgA = await insertOrg(t.platform, 'org-a', ua.id);
  const orgB = await insertOrg(t.platform, 'org-b', ub.id);
  const sa = await insertSite(t.platform, orgA.id, 'iso-a', A);
  siteB = await insertSite(t.platform, orgB.id, 'iso-b', B);
  await insertApp(t.platform, sa.id, 'web');
  await insertApp(t.platform, siteB.id, 'web');
  const fields = {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'secret_note', type: 'string' },
    ],
    primaryKey: 'id',
  };
  await createTables(t, { host: A, token: tokA, app: 'web' }, [{ name: 'vault', schema: fields }]);
  await createTables(t, { host: B, token: tokB, app: 'web' }, [{ name: 'notes', schema: fields }]);
  await q(`INSERT INTO iso_a.web_vault (id, secret_note) VALUES (1, 'site-a-only')`);
  const res = await t.call('POST', BASE, {
    host: A,
    token: tokA,
    body: { name: 'Vault', connection_type: 'internal', query_text: 'SELECT * FROM vault' },
  });
  expect(res.status).toBe(201);
});
afterAll(() => t.close());

describe('routes', () => {
  test.each([
    ['GET', 'vault/', undefined],
    ['PUT', 'vault/', { name: 'x' }],
    ['POST', 'vault/execute/', { params: {} }],
    ['GET', 'vault/executions/', undefined],
    ['DELETE', 'vault/', undefined],
  ])('%s %s: another site answers 404; the owner succeeds', async (method, suffix, body) => {
    const other = await t.call(method, BASE + suffix, { host: B, token: tokB, body });
    expect(other.status).toBe(404);
    expect(JSON.stringify(other.body)).not.toContain('site-a-only');
    // A's token on B's host: no access to site B at all.
    expect((await t.call(method, BASE + suffix, { host: B, token: tokA, body })).status).toBe(403);
    if (method === 'DELETE') return;
    const own = await t.call(method, BASE + suffix, { host: A, token: tokA, body });
    expect(own.status).toBe(200);
  });

  test('list: each site sees its own queries only', async () => {
    const b = await t.call('GET', BASE, { host: B, token: tokB });
    expect(b.body).toMatchObject({ status: 'success', total: 0, data: [] });
    const a = await t.call('GET', BASE, { host: A, token: tokA });
    expect(a.body.total).toBe(1);
  });
});

describe('internal queries of site B', () => {
  const exec = async (sql: string) => {
    const made = await t.call('POST', BASE, {
      host: B,
      token: tokB,
      body: { name: `q ${Math.random()}`, connection_type: 'internal', query_text: sql },
    });
    if (made.status !== 201) return made;
    return t.call('POST', `${BASE}${made.body.data.slug}/execute/`, { host: B, token: tokB, body: { params: {} } });
  };

  test('read their own tables by logical name', async () => {
    const res = await exec('SELECT count(*) AS n FROM notes');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ n: 0 }]);
  });

  test.each([
    'SELECT * FROM iso_a.web_vault',
    'SELECT * FROM "iso_a"."web_vault"',
    'SELECT * FROM web_vault',
    'SELECT * FROM vault',
    'SELECT rolpassword FROM pg_authid',
    'SELECT relname FROM pg_class',
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_ls_dir('.')",
    "SELECT * FROM dblink('host=x', 'select 1') AS t(a int)",
  ])('%s: refused or not found, never site A data', async (sql) => {
    const res = await exec(sql);
    expect([400, 422]).toContain(res.status);
    expect(JSON.stringify(res.body)).not.toContain('site-a-only');
  });

  test('information_schema shows only site B tables', async () => {
    const res = await exec(
      "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ table_schema: 'iso_b', table_name: 'web_notes' }]);
  });

  test('the role itself refuses what the parser would have stopped', async () => {
    const target = { siteId: siteB.id, schema: 'iso_b' };
    const req = (text: string) => ({ text, values: [], maxRows: 10, timeoutMs: 5000 });
    await expect(runInternal(t.platform, target, req('SELECT * FROM iso_a.web_vault'))).rejects.toMatchObject({ code: '42501' });
    await expect(runInternal(t.platform, target, req('SELECT rolpassword FROM pg_authid'))).rejects.toMatchObject({ code: '42501' });
    await expect(runInternal(t.platform, target, req("SELECT pg_read_file('/etc/passwd')"))).rejects.toMatchObject({ code: '42501' });
    await expect(runInternal(t.platform, target, req('SELECT * FROM public.users'))).rejects.toMatchObject({ code: '42501' });
    await expect(runInternal(t.platform, target, req('SELECT count(*) AS n FROM web_notes'))).resolves.toMatchObject({ rows: [{ n: 0 }] });
  });
});

// Probes that reach the check (issue 16 item 3): each a complete request built by the
// permission matrix's fixtures (test/support/matrix/analytics.ts) against a victim tenant, sent by
// another tenant's owner (404) and then by the victim's owner (must succeed), route by route
// and field by field: another site's query (by slug, its app by slug or UUID), its execution and its executions list.
describe.each(['in-process', 'distributed'] as const)('probes that reach the check (%s)', (mode) => {
  let platform: Awaited<ReturnType<typeof startPlatformIn>>;
  let worlds: IsolationWorlds;
  beforeAll(async () => {
    platform = await startPlatformIn(mode);
    worlds = { t: platform.t, attacker: await buildWorld(platform.t, 'atk'), victim: await buildWorld(platform.t, 'vic') };
  }, 180_000);
  afterAll(() => platform?.close());
  if (mode === 'in-process') describe('REST: every object route', () => restIsolationTests('analytics', () => worlds));
  describe('GraphQL: every Query and Mutation field taking an identifier', () => graphqlIsolationTests('analytics', () => worlds));
});
