// Datatables through GraphQL (App.tables, datatable, createSchema, deleteTable), foreign-key
// cycles and every onDelete action, and tenant isolation: a site's tables are unreachable
// from another site's host through REST and GraphQL, whatever the names.
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { restIsolationTests, graphqlIsolationTests, type IsolationWorlds } from '../support/matrix/isolation.js';
import { buildWorld } from '../support/matrix/world.js';
import { startPlatformIn } from './graphql-fixtures.js';

const A = 'a.isolation.test';
const B = 'b.isolation.test';
let t: TestApp;
let tokA: string, tokB: string;
let webA: { uuid: string };

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const gql = (host: string, token: string, query: string, variables: Record<string, unknown> = {}) =>
  t.call('POST', '/graphql', { host, token, body: { query, variables } });

beforeAll(async () => {
  t = await startTestApp();
  const [ua, ub] = await Promise.all([t.createUser(), t.createUser()]);
  [tokA, tokB] = [t.tokenFor(ua), t.tokenFor(ub)];
  const orgA = await insertOrg(t.platform, 'org-a', ua.id);
  const orgB = await insertOrg(t.platform, 'org-b', ub.id);
  const siteA = await insertSite(t.platform, orgA.id, 'site-a', A);
  const siteB = await insertSite(t.platform, orgB.id, 'site-b', B);
  webA = await insertApp(t.platform, siteA.id, 'web');
  await insertApp(t.platform, siteB.id, 'web');
  await createTables(t, { host: A, token: tokA, app: 'web' }, [{ name: 'secrets', schema: { fields: [{ name: 'v' }] } }]);
});
afterAll(() => t.close());

describe('GraphQL', () => {
  test('createSchema, datatable, App.tables, deleteTable', async () => {
    const created = await gql(
      A,
      tokA,
      'mutation ($p: JSON!) { createSchema(app: "web", package: $p) { name physicalName provider rowCount schema } }',
      {
        p: { resources: [{ name: 'gq', provider: 'jsonb', schema: { fields: [{ name: 'x', type: 'integer' }] } }] },
      },
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createSchema[0]).toMatchObject({ name: 'gq', provider: 'jsonb', rowCount: 0 });
    const one = await gql(A, tokA, '{ datatable(app: "web", name: "secrets") { name physicalName rowCount description } }');
    expect(one.body.data.datatable).toEqual({ name: 'secrets', physicalName: 'web_secrets', rowCount: 0, description: '' });
    expect((await gql(A, tokA, '{ datatable(app: "web", name: "nope") { name } }')).body.data.datatable).toBeNull();
    const list = await gql(A, tokA, `{ app(slug: "web") { tables { items { name rowCount } total page pageSize } } }`);
    expect(list.body.data.app.tables).toEqual({
      items: [
        { name: 'gq', rowCount: 0 },
        { name: 'secrets', rowCount: 0 },
      ],
      total: 2,
      page: 1,
      pageSize: 20,
    });
    const bad = await gql(A, tokA, 'mutation { createSchema(app: "web", package: {resources: []}) { name } }');
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'invalid', status: 400 });
    const del = await gql(A, tokA, 'mutation { deleteTable(app: "web", name: "gq") { name provider rowCount } }');
    expect(del.body.data).toEqual({ deleteTable: { name: 'gq', provider: expect.any(String), rowCount: 0 } });
  });

  test('tenancy app views count tables', async () => {
    const res = await t.call('GET', '/api/apps/web/', { host: A, token: tokA });
    expect(res.status).toBe(200);
    expect(res.body.table_count).toBe(1);
  });
});

describe('foreign keys', () => {
  test('cycles among new tables, and every onDelete action enforced by the database', async () => {
    await createTables(t, { host: A, token: tokA, app: 'web' }, [
      {
        name: 'left',
        schema: {
          fields: [
            { name: 'id', type: 'integer' },
            { name: 'r', type: 'integer' },
          ],
          primaryKey: 'id',
          foreignKeys: [{ fields: 'r', reference: { resource: 'right', fields: 'id' } }],
        },
      },
      {
        name: 'right',
        schema: {
          fields: [
            { name: 'id', type: 'integer' },
            { name: 'l', type: 'integer' },
          ],
          primaryKey: 'id',
          foreignKeys: [{ fields: 'l', reference: { resource: 'left', fields: 'id' } }],
        },
      },
      { name: 'parent', schema: { fields: [{ name: 'id', type: 'integer' }], primaryKey: 'id' } },
      {
        name: 'child',
        schema: {
          fields: [
            { name: 'id', type: 'integer' },
            { name: 'restrict', type: 'integer' },
            { name: 'noaction', type: 'integer' },
            { name: 'setdefault', type: 'integer', default: 0 },
          ],
          primaryKey: 'id',
          foreignKeys: [
            { fields: 'restrict', reference: { resource: 'parent', fields: 'id' } },
            { fields: 'noaction', reference: { resource: 'parent', fields: 'id' }, 'x-actions': { onDelete: 'NO ACTION' } },
            { fields: 'setdefault', reference: { resource: 'parent', fields: 'id' }, 'x-actions': { onDelete: 'SET DEFAULT' } },
          ],
        },
      },
    ]);
    const s = '"site_a"';
    await q(`INSERT INTO ${s}.web_parent (id) VALUES (0), (1), (2), (3)`);
    await q(`INSERT INTO ${s}.web_child (id, restrict, noaction, setdefault) VALUES (1, 1, NULL, 3), (2, NULL, 2, NULL)`);
    // restrict_violation (23001) from PostgreSQL 18; older servers report foreign_key_violation (23503)
    await expect(q(`DELETE FROM ${s}.web_parent WHERE id = 1`)).rejects.toMatchObject({ code: expect.stringMatching(/^(23001|23503)$/) });
    await expect(q(`DELETE FROM ${s}.web_parent WHERE id = 2`)).rejects.toMatchObject({ code: '23503' });
    await q(`DELETE FROM ${s}.web_parent WHERE id = 3`);
    expect((await q(`SELECT setdefault FROM ${s}.web_child WHERE id = 1`))[0].setdefault).toBe(0);
    const [{ n }] = await q(
      `SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text IN ('site_a.web_left', 'site_a.web_right')`,
    );
    expect(n).toBe(2);
  });
});

describe('tenant isolation', () => {
  test("site B's host never reaches site A's tables, by app slug or UUID", async () => {
    const asB = { host: B, token: tokB };
    expect((await t.call('GET', '/api/apps/web/datatables/secrets/', asB)).status).toBe(404);
    expect((await t.call('GET', `/api/apps/${webA.uuid}/datatables/`, asB)).status).toBe(404);
    expect((await t.call('GET', '/api/apps/web/datatables/', asB)).body).toMatchObject({ data: [], total: 0 });
    expect((await t.call('DELETE', '/api/apps/web/datatables/secrets/', asB)).status).toBe(404);
    // Same table name on B: its own table in its own schema.
    const [v] = await createTables(t, { host: B, token: tokB, app: 'web' }, [{ name: 'secrets', schema: { fields: [{ name: 'w' }] } }]);
    expect(v.physical_name).toBe('web_secrets');
    expect(
      (await q(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'web_secrets' ORDER BY 1`)).map(
        (r: any) => r.table_schema,
      ),
    ).toEqual(['site_a', 'site_b']);
    expect((await t.call('GET', '/api/apps/web/datatables/secrets/', asB)).body.schema.fields.map((f: any) => f.name)).toEqual(['id', 'w']);
    // A's user on B's host: no access to B's site.
    expect((await t.call('GET', '/api/apps/web/datatables/secrets/', { host: B, token: tokA })).status).toBe(403);
    const g = await gql(B, tokB, `{ app(slug: "${webA.uuid}") { tables { total } } }`);
    expect(g.body.data?.app ?? null).toBeNull();
    const gd = await gql(B, tokB, `{ datatable(app: "${webA.uuid}", name: "secrets") { name } }`);
    expect(gd.body.errors[0].extensions.code).toBe('not_found');
  });
});

// Probes that reach the check (issue 16 item 3): each a complete request built by the
// permission matrix's fixtures (test/support/matrix/data.ts) against a victim tenant, sent by
// another tenant's owner (404) and then by the victim's owner (must succeed), route by route.
describe.each(['in-process', 'distributed'] as const)('probes that reach the check (%s)', (mode) => {
  let platform: Awaited<ReturnType<typeof startPlatformIn>>;
  let worlds: IsolationWorlds;
  beforeAll(async () => {
    platform = await startPlatformIn(mode);
    worlds = { t: platform.t, attacker: await buildWorld(platform.t, 'atk'), victim: await buildWorld(platform.t, 'vic') };
  }, 180_000);
  afterAll(() => platform?.close());
  if (mode === 'in-process') describe('REST: every object route', () => restIsolationTests('data', () => worlds));
  describe('GraphQL: every Query and Mutation field taking an identifier', () => graphqlIsolationTests('data', () => worlds));
});
