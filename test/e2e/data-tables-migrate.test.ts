// Resubmitting tables migrates them (docs/data-service.md "Migrations"): additive changes
// apply, destructive ones need allow_data_loss, constraints violated by existing rows answer
// 400 naming the field with nothing changed, and the catalogue version moves on.
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const SHOP = 'shop.migrate.test';
let t: TestApp;
let tok: string;

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const submit = (resources: unknown[], qs = '') =>
  t.call('POST', `/api/apps/web/datatables/create_schema/${qs}`, { token: tok, host: SHOP, body: { resources } });
const version = async (name: string) => (await q('SELECT version FROM datatables WHERE name = $1', [name]))[0].version;
const columns = async (table: string) =>
  Object.fromEntries(
    (
      await q(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'shop' AND table_name = $1`,
        [table],
      )
    ).map((r: any) => [r.column_name, `${r.data_type}${r.is_nullable === 'NO' ? ' not null' : ''}`]),
  );
const item = (fields: unknown[], extra: Record<string, unknown> = {}) => ({
  name: 'items',
  schema: { fields, primaryKey: 'id', ...extra },
});
const ID = { name: 'id', type: 'integer' };

beforeAll(async () => {
  t = await startTestApp();
  const owner = await t.createUser();
  tok = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'acme', owner.id);
  const site = await insertSite(t.platform, org.id, 'shop', SHOP);
  await insertApp(t.platform, site.id, 'web');
  expect(
    (await submit([item([ID, { name: 'name', type: 'string' }, { name: 'qty', type: 'string' }, { name: 'old', type: 'string' }])])).status,
  ).toBe(201);
  await q(`INSERT INTO shop.web_items (name, qty, old) VALUES ('a', '1', 'x'), ('b', '2', 'y'), ('b', 'many', 'z')`);
});
afterAll(() => t.close());

describe('migrations', () => {
  test('unchanged resubmission: 200, version kept', async () => {
    const res = await submit([
      item([ID, { name: 'name', type: 'string' }, { name: 'qty', type: 'string' }, { name: 'old', type: 'string' }]),
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data[0].row_count).toBe(3);
    expect(await version('items')).toBe(1);
  });

  test('removing and retyping fields needs allow_data_loss; 400 names them', async () => {
    const next = item([ID, { name: 'name', type: 'string' }, { name: 'qty', type: 'integer' }]);
    const res = await submit([next]);
    expect(res.status).toBe(400);
    expect(res.body.details['resources[0].schema.fields'][0]).toContain('"old"');
    expect(res.body.details['resources[0].schema.fields[2].type']).toBeDefined();
    expect(await columns('web_items')).toMatchObject({ qty: 'text', old: 'text' });
    const ok = await submit([next], '?allow_data_loss=true');
    expect(ok.status).toBe(200);
    const cols = await columns('web_items');
    expect(cols.qty).toBe('bigint');
    expect(cols.old).toBeUndefined();
    // 'many' does not cast: the column was dropped and re-added, so every value is gone.
    expect((await q('SELECT qty FROM shop.web_items ORDER BY id')).map((r: any) => r.qty)).toEqual([null, null, null]);
    expect(await version('items')).toBe(2);
  });

  test('a cast PostgreSQL can do keeps the values', async () => {
    await q(`UPDATE shop.web_items SET qty = id * 10`);
    const res = await submit([item([ID, { name: 'name', type: 'string' }, { name: 'qty', type: 'number' }])], '?allow_data_loss=true');
    expect(res.status).toBe(200);
    expect((await q('SELECT qty FROM shop.web_items ORDER BY id')).map((r: any) => r.qty)).toEqual([10, 20, 30]);
  });

  test('a new unique constraint on duplicates: 400 naming the field, nothing changed', async () => {
    const res = await submit([
      item([
        ID,
        { name: 'name', type: 'string', constraints: { unique: true } },
        { name: 'qty', type: 'number' },
        { name: 'extra', type: 'string' },
      ]),
    ]);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.details)).toEqual(['resources[0].schema.fields.name']);
    expect((await columns('web_items')).extra).toBeUndefined();
    expect(await version('items')).toBe(3);
  });

  test('a new required field: with a default it fills existing rows, without one it is refused', async () => {
    const base = [ID, { name: 'name', type: 'string' }, { name: 'qty', type: 'number' }];
    const refused = await submit([item([...base, { name: 'sku', type: 'string', constraints: { required: true } }])]);
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.details)).toEqual(['resources[0].schema.fields[3]']);
    const ok = await submit([
      item([...base, { name: 'sku', type: 'string', default: 'n/a', constraints: { required: true, maxLength: 10 } }]),
    ]);
    expect(ok.status).toBe(200);
    expect((await q('SELECT DISTINCT sku FROM shop.web_items')).map((r: any) => r.sku)).toEqual(['n/a']);
    await expect(q(`INSERT INTO shop.web_items (sku) VALUES (repeat('x', 11))`)).rejects.toMatchObject({ code: '23514' });
    // Tightening a check that rows break: refused.
    const tight = await submit([
      item([...base, { name: 'sku', type: 'string', default: 'n', constraints: { required: true, maxLength: 2 } }]),
    ]);
    expect(tight.status).toBe(400);
    expect(Object.keys(tight.body.details)).toEqual(['resources[0].schema.fields.sku']);
  });

  test('search fields added later; a foreign key to a new table in the same package', async () => {
    const base = [
      ID,
      { name: 'name', type: 'string' },
      { name: 'qty', type: 'number' },
      { name: 'sku', type: 'string', default: 'n/a', constraints: { required: true } },
    ];
    const res = await submit([
      item([...base, { name: 'cat', type: 'integer' }], {
        search_fields: ['name'],
        foreignKeys: [{ fields: 'cat', reference: { resource: 'cats', fields: 'id' }, 'x-actions': { onDelete: 'CASCADE' } }],
      }),
      { name: 'cats', schema: { fields: [ID], primaryKey: 'id' } },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.message).toContain('Created 1 table');
    const hits = await q(`SELECT name FROM shop.web_items WHERE search_vector @@ websearch_to_tsquery('english', 'b')`);
    expect(hits.length).toBe(2);
    await q('INSERT INTO shop.web_cats (id) VALUES (1)');
    await q('UPDATE shop.web_items SET cat = 1 WHERE id = 1');
    await q('DELETE FROM shop.web_cats');
    expect((await q('SELECT id FROM shop.web_items ORDER BY id')).map((r: any) => r.id)).toEqual([2, 3]);
  });

  test('changing the key re-creates the table (allow_data_loss); provider changes too', async () => {
    const res = await submit([{ name: 'cats', schema: { fields: [{ name: 'code', type: 'string' }], primaryKey: 'code' } }]);
    expect(res.status).toBe(400);
    expect(res.body.details['resources[0].schema.primaryKey'].join(' ')).toContain('"items"');
    const both = await submit(
      [
        { name: 'cats', schema: { fields: [{ name: 'code', type: 'string' }], primaryKey: 'code' } },
        item([ID, { name: 'name', type: 'string' }, { name: 'cat', type: 'string', format: 'uuid' }], {
          foreignKeys: [{ fields: 'cat', reference: { resource: 'cats', fields: 'code' } }],
        }),
      ],
      '?allow_data_loss=true',
    );
    expect(both.status).toBe(200);
    expect(await columns('web_cats')).toEqual({ code: 'uuid not null' });
    const toJsonb = await submit([{ name: 'notes', schema: { fields: [{ name: 'a', type: 'string' }] } }]);
    expect(toJsonb.status).toBe(201);
    await q('INSERT INTO shop.web_notes (a) VALUES ($1)', ['x']);
    const moved = await submit(
      [{ name: 'notes', provider: 'jsonb', schema: { fields: [{ name: 'a', type: 'string', constraints: { unique: true } }] } }],
      '?allow_data_loss=true',
    );
    expect(moved.status).toBe(200);
    expect(moved.body.data[0]).toMatchObject({ provider: 'jsonb', row_count: 0, physical_name: expect.stringMatching(/^_jsonb_app_/) });
    expect(await q(`SELECT 1 FROM pg_class WHERE relname = 'web_notes'`)).toEqual([]);
  });

  test('jsonb: removed fields stripped, new defaults filled, duplicates refused for unique', async () => {
    const [{ physical_name: store, id }] = await q(`SELECT physical_name, id FROM datatables WHERE name = 'notes'`);
    await q(`INSERT INTO shop."${store}" (table_id, record_id, data) VALUES ($1, '1', '{"a":"x","b":1}'), ($1, '2', '{"a":"y","b":1}')`, [
      id,
    ]);
    const dup = await submit([
      {
        name: 'notes',
        provider: 'jsonb',
        schema: {
          fields: [
            { name: 'a', type: 'string' },
            { name: 'b', type: 'integer', constraints: { unique: true } },
          ],
        },
      },
    ]);
    expect(dup.status).toBe(400);
    expect(Object.keys(dup.body.details)).toEqual(['resources[0].schema.fields.b']);
    const ok = await submit(
      [
        {
          name: 'notes',
          provider: 'jsonb',
          schema: {
            fields: [
              { name: 'b', type: 'integer' },
              { name: 'c', type: 'string', default: 'z' },
            ],
          },
        },
      ],
      '?allow_data_loss=true',
    );
    expect(ok.status).toBe(200);
    expect((await q(`SELECT data FROM shop."${store}" WHERE table_id = $1 ORDER BY record_id`, [id])).map((r: any) => r.data)).toEqual([
      { b: 1, c: 'z' },
      { b: 1, c: 'z' },
    ]);
  });
});
