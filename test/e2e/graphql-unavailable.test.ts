// The database going away answers 503 `service_unavailable` on GraphQL (issue 10 item 5), on
// the gateway's path and on the short way alike, never HTTP 200 with `internal_error`.
import pg from 'pg';
import { freePort } from '../../subgraphs/core/embedded-postgres.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'shop.unavailable.test';
let t: TestApp;
let token: string;

const gql = (query: string) => t.call('POST', '/graphql', { token, host: HOST, body: { query } });

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createUser();
  token = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'down-org', owner.id);
  const site = await insertSite(t.platform, org.id, 'down-site', HOST);
  await insertApp(t.platform, site.id, 'web');
  await createTables(t, { host: HOST, token, app: 'web' }, [{ name: 'notes', schema: { fields: [{ name: 'title', type: 'string' }] } }]);
});
afterAll(() => t.close());

test('database down: GraphQL answers 503 service_unavailable', async () => {
  const query = '{ records(app: "web", table: "notes") { total } }';
  expect((await gql(query)).status).toBe(200);
  expect((await gql(query)).status).toBe(200); // the second one on the short way
  // New connections go to a closed port; the existing ones are ended by the server.
  const pool = t.platform.pool as pg.Pool & { options: { connectionString?: string } };
  const url = new URL(pool.options.connectionString!);
  const database = url.pathname.slice(1);
  url.port = String(await freePort());
  pool.options.connectionString = url.toString();
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL ?? t.platform.databaseUrl });
  await admin.connect();
  await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  await admin.end();
  for (const q of [query, '{ records(app: "web", table: "notes") { total page } }']) {
    const res = await gql(q);
    expect(res.status).toBe(503);
    const code = res.body.errors ? res.body.errors[0].extensions.code : res.body.code;
    expect(code).toBe('service_unavailable');
  }
});
