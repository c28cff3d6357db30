// Tenants' regular expressions run on a linear-time engine (issue 10 item 1): a datatable
// `pattern` or a secret-type schema `pattern` of `^(a+)+$` against 30 "a"s and "!" (36 s per
// request on a backtracking engine, doubling per character) answers at once while another
// tenant's read is served; patterns RE2 cannot compile are refused at definition, naming the field.
// No timing assertion: on a backtracking engine these requests would outlast the jest timeout.
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const A = 'a.regexp.test';
const B = 'b.regexp.test';
const EVIL = '^(a+)+$';
const VALUE = 'a'.repeat(30) + '!';
let t: TestApp;
let tokA: string, tokB: string;

beforeAll(async () => {
  t = await startTestApp();
  const ua = await t.createUser();
  const ub = await t.createUser();
  [tokA, tokB] = [t.tokenFor(ua), t.tokenFor(ub)];
  const siteA = await insertSite(t.platform, (await insertOrg(t.platform, 'rx-a', ua.id)).id, 'rx-a', A);
  const siteB = await insertSite(t.platform, (await insertOrg(t.platform, 'rx-b', ub.id)).id, 'rx-b', B);
  await insertApp(t.platform, siteA.id, 'web');
  await insertApp(t.platform, siteB.id, 'web');
  await createTables(t, { host: A, token: tokA, app: 'web' }, [
    { name: 'evil', schema: { fields: [{ name: 's', type: 'string', constraints: { pattern: EVIL } }] } },
  ]);
  await createTables(t, { host: B, token: tokB, app: 'web' }, [{ name: 'notes', schema: { fields: [{ name: 'v' }] } }]);
  await t.call('POST', '/api/apps/web/datatables/notes/data/', { host: B, token: tokB, body: { v: 'hello' } });
});
afterAll(() => t.close());

describe('datatable patterns', () => {
  test('the catastrophic pattern answers 400 while another tenant reads', async () => {
    const order: string[] = [];
    const slow = t
      .call('POST', '/api/apps/web/datatables/evil/data/', { host: A, token: tokA, body: { s: VALUE } })
      .then((r) => (order.push('write'), r));
    const read = t.call('GET', '/api/apps/web/datatables/notes/data/', { host: B, token: tokB }).then((r) => (order.push('read'), r));
    const [w, r] = await Promise.all([slow, read]);
    expect(w.status).toBe(400);
    expect(JSON.stringify(w.body)).toContain('pattern');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([expect.objectContaining({ v: 'hello' })]);
    expect(order).toHaveLength(2);
    // The pattern still works: a matching value is stored.
    const ok = await t.call('POST', '/api/apps/web/datatables/evil/data/', { host: A, token: tokA, body: { s: 'aaaa' } });
    expect(ok.status).toBe(201);
  });

  test('patterns RE2 cannot compile are refused with 400 naming the field', async () => {
    for (const pattern of ['(?=a)b', '(a)\\1', '(?<!x)y', '[', 'a{5000}']) {
      const res = await t.call('POST', '/api/apps/web/datatables/create_schema/', {
        host: A,
        token: tokA,
        body: { resources: [{ name: 'bad', schema: { fields: [{ name: 's', type: 'string', constraints: { pattern } }] } }] },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('resources[0].schema.fields[0].constraints.pattern');
    }
  });
});

describe('secret-type patterns', () => {
  test('a custom type with the catastrophic pattern validates at once; unsupported patterns refused', async () => {
    const created = await t.call('POST', '/api/secret-types/', {
      host: A,
      token: tokA,
      body: {
        name: 'Evil',
        schema: {
          type: 'object',
          properties: { s: { type: 'string', pattern: EVIL } },
          patternProperties: { '^(b+)+$': { type: 'string' } },
        },
      },
    });
    expect(created.status).toBe(201);
    const slug = created.body.slug;
    const write = t.call('POST', '/api/secrets/', { host: A, token: tokA, body: { secret_type: slug, key: 'k', value: { s: VALUE } } });
    const keyed = t.call('POST', '/api/secrets/', {
      host: A,
      token: tokA,
      body: { secret_type: slug, key: 'k2', value: { ['b'.repeat(30) + '!']: 1 } },
    });
    const read = t.call('GET', '/api/apps/web/datatables/notes/data/', { host: B, token: tokB });
    const [w, k, r] = await Promise.all([write, keyed, read]);
    expect(w.status).toBe(400);
    expect(k.status).toBe(201); // the key does not match the pattern property, so no constraint applies
    expect(r.status).toBe(200);

    for (const schema of [
      { type: 'string', pattern: '(?=a)b' },
      { type: 'object', patternProperties: { '(x)\\1': {} } },
    ]) {
      const bad = await t.call('POST', '/api/secret-types/', { host: A, token: tokA, body: { name: 'Bad', schema } });
      expect(bad.status).toBe(400);
      expect(bad.body.detail.schema[0]).toMatch(/^\/(pattern|patternProperties\/.*): Not a supported regular expression/);
    }
  });
});
