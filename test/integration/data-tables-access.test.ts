// loadTable, the hot path of every record request: one query for app, permissions and
// catalogue entry; the parsed model cached per (id, version); every refusal in order.
import { jest } from '@jest/globals';
import type { Principal, RequestContext, SiteRef } from '../../subgraphs/core/context.js';
import { createSchema } from '../../subgraphs/data/table/table.service.js';
import { loadTable } from '../../subgraphs/data/table/table-access.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';

let t: TestApp;
let owner: User, stranger: User;
let site: SiteRef;
let appIds: { web: number; other: number };

const userOf = (u: User): Principal => ({
  kind: 'user',
  via: 'jwt',
  userId: u.id,
  uuid: u.uuid,
  username: u.username,
  isStaff: false,
  isSuperuser: false,
});
const ctxOf = (p: Principal): RequestContext => ({
  requestId: 'test',
  principal: p,
  site,
  host: 'shop.access.test',
  baseUrl: 'http://shop.access.test',
  platform: t.platform,
  log: t.platform.log,
});

beforeAll(async () => {
  t = await startTestApp();
  [owner, stranger] = await Promise.all([t.createUser(), t.createUser()]);
  const org = await insertOrg(t.platform, 'acme', owner.id);
  const s = await insertSite(t.platform, org.id, 'shop', 'shop.access.test');
  site = {
    id: (s as any).id,
    uuid: s.uuid,
    slug: 'shop',
    name: 'shop',
    schemaName: 'shop',
    organizationId: org.id,
    environment: 'production',
  };
  appIds = { web: (await insertApp(t.platform, s.id, 'web')).id, other: (await insertApp(t.platform, s.id, 'other')).id };
  const r = await createSchema(ctxOf(userOf(owner)), 'web', {
    resources: [{ name: 'items', schema: { fields: [{ name: 'a', type: 'string' }] } }],
  });
  expect(r.status).toBe(201);
});
afterAll(() => t.close());

describe('loadTable', () => {
  test('one query on a miss, none on a hit, the same parsed table every time', async () => {
    const ctx = ctxOf(userOf(owner));
    // The clock stands still, so the short grant bound cannot expire between the calls however
    // slow the machine is: the assertion is about the cache, not about time.
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
    const first = await loadTable(ctx, 'web', 'items', 'data:read');
    const spy = jest.spyOn(t.platform.pool, 'query');
    const again = await loadTable(ctx, 'web', 'items', 'data:write');
    expect(spy).toHaveBeenCalledTimes(1);
    await loadTable(ctx, 'web', 'items', 'data:write');
    expect(spy).toHaveBeenCalledTimes(1); // granted lookups are kept for a short bound
    spy.mockRestore();
    clock.mockRestore();
    expect(again.table).toBe(first.table);
    expect(again.app).toMatchObject({ id: appIds.web, slug: 'web', siteId: site.id });
    expect(first.table).toMatchObject({ name: 'items', physicalName: 'web_items', schemaName: 'shop', provider: 'flat_table', version: 1 });
    expect(first.table.model.fields.map((f) => f.name)).toEqual(['id', 'a']);
  });

  test('a migration (new version) is seen at once', async () => {
    const ctx = ctxOf(userOf(owner));
    await createSchema(ctx, 'web', {
      resources: [
        {
          name: 'items',
          schema: {
            fields: [
              { name: 'a', type: 'string' },
              { name: 'b', type: 'integer' },
            ],
          },
        },
      ],
    });
    const { table } = await loadTable(ctx, 'web', 'items', 'data:read');
    expect(table.version).toBe(2);
    expect(table.model.fields.map((f) => f.name)).toEqual(['id', 'a', 'b']);
  });

  test('refusals: 401 anonymous, 403 without access, 404 app, 404 table, API keys only their app', async () => {
    const status = (p: Promise<unknown>) =>
      p.then(
        () => 200,
        (e) => (e as { status: number }).status,
      );
    expect(await status(loadTable(ctxOf({ kind: 'anonymous' }), 'web', 'items', 'data:read'))).toBe(401);
    expect(await status(loadTable(ctxOf(userOf(stranger)), 'web', 'items', 'data:read'))).toBe(403);
    expect(await status(loadTable(ctxOf(userOf(owner)), 'nope', 'items', 'data:read'))).toBe(404);
    expect(await status(loadTable(ctxOf(userOf(owner)), 'web', 'nope', 'data:read'))).toBe(404);
    expect(await status(loadTable(ctxOf(userOf(owner)), 'other', 'items', 'data:read'))).toBe(404);
    const key = (appId: number): Principal => ({ kind: 'api_key', keyId: 1, appId, siteId: site.id });
    expect(await status(loadTable(ctxOf(key(appIds.web)), 'web', 'items', 'data:write'))).toBe(200);
    expect(await status(loadTable(ctxOf(key(appIds.other)), 'web', 'items', 'data:read'))).toBe(404);
    const otherSiteKey: Principal = { kind: 'api_key', keyId: 2, appId: appIds.web, siteId: site.id + 1000 };
    expect(await status(loadTable(ctxOf(otherSiteKey), 'web', 'items', 'data:read'))).toBe(403);
  });

  test('concurrent create_schema of one app is serialized: one creates, the other finds it', async () => {
    const ctx = ctxOf(userOf(owner));
    const pkg = { resources: [{ name: 'race', schema: { fields: [{ name: 'a', type: 'string', constraints: { unique: true } }] } }] };
    const results = await Promise.all([createSchema(ctx, 'web', pkg), createSchema(ctx, 'web', pkg), createSchema(ctx, 'other', pkg)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 201, 201]);
    const { rows } = await t.platform.pool.query(`SELECT name, version FROM datatables WHERE name = 'race' ORDER BY app_id`);
    expect(rows).toEqual([
      { name: 'race', version: 1 },
      { name: 'race', version: 1 },
    ]);
  });

  test('throughput: loadTable next to a bare prepared lookup', async () => {
    const ctx = ctxOf(userOf(owner));
    const n = 500;
    let t0 = performance.now();
    for (let i = 0; i < n; i++)
      await t.platform.pool.query({
        name: 'bare_items',
        text: 'SELECT * FROM shop.web_items WHERE id = $1',
        values: ['00000000-0000-0000-0000-000000000000'],
      });
    const bare = performance.now() - t0;
    t0 = performance.now();
    for (let i = 0; i < n; i++) await loadTable(ctx, 'web', 'items', 'data:read');
    const load = performance.now() - t0;
    expect(load).toBeLessThan(bare); // a granted lookup is served from the short-lived cache
  });
});
