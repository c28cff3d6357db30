// Analytics queries through REST (seed 2 "Analytics queries", DECISIONS §10): the CRUD
// envelopes, permissions, templates bound and checked by the PostgreSQL grammar, internal
// execution on the tenant's schema with logical names, limits and the execution log.
import { startTestApp, type TestApp } from '../support/app.js';
import { createTables } from '../support/datatables.js';
import { hostileNumbers, hostileObjects, hostileStrings } from '../support/hostile-values.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'shop.analytics.test';
const BASE = '/api/apps/web/analytics/queries/';

let t: TestApp;
let ownerTok: string, readerTok: string, runnerTok: string, outsiderTok: string;

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const call = (method: string, path: string, token = ownerTok, body?: unknown) => t.call(method, path, { host: HOST, token, body });
const create = (body: unknown, token = ownerTok) => call('POST', BASE, token, body);
const run = (slug: string, params: unknown, token = ownerTok) => call('POST', `${BASE}${slug}/execute/`, token, { params });

beforeAll(async () => {
  // One execution per site at a time here, so the concurrency test below can see the bound.
  t = await startTestApp({ ANALYTICS_MAX_ROWS: '50', ANALYTICS_MAX_CONCURRENT: '1' });
  const owner = await t.createUser();
  const reader = await t.createUser();
  const runner = await t.createUser();
  const outsider = await t.createUser();
  [ownerTok, readerTok, runnerTok, outsiderTok] = [owner, reader, runner, outsider].map((u) => t.tokenFor(u));
  const org = await insertOrg(t.platform, 'acme', owner.id);
  const site = await insertSite(t.platform, org.id, 'shop', HOST);
  await insertApp(t.platform, site.id, 'web');
  await q(`INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{view_site,analytics:read}')`, [
    org.id,
    reader.id,
  ]);
  await q(
    `INSERT INTO memberships (organization_id, user_id, role, permissions) VALUES ($1, $2, 'member', '{view_site,analytics:read,analytics:execute}')`,
    [org.id, runner.id],
  );
  await insertOrg(t.platform, 'other', outsider.id);
  await createTables(t, { host: HOST, token: ownerTok, app: 'web' }, [
    {
      name: 'orders',
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'status', type: 'string' },
          { name: 'amount', type: 'number' },
        ],
        primaryKey: 'id',
      },
    },
  ]);
  await q(
    `INSERT INTO shop.web_orders (id, status, amount) SELECT g, CASE WHEN g % 2 = 0 THEN 'paid' ELSE 'open' END, g FROM generate_series(1, 120) g`,
  );
});
afterAll(() => t.close());

describe('CRUD', () => {
  test('create, list, read, update, delete with the seed envelopes', async () => {
    const res = await create({
      name: 'Paid Orders',
      connection_type: 'internal',
      query_text: 'SELECT count(*) AS n FROM orders',
      tags: ['sales'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      status: 'success',
      message: expect.any(String),
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Paid Orders',
        slug: 'paid-orders',
        description: '',
        app: 'web',
        connection_type: 'internal',
        secret_key: null,
        query_text: 'SELECT count(*) AS n FROM orders',
        tags: ['sales'],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const again = await create({ name: 'Paid Orders', connection_type: 'internal', query_text: 'SELECT 1' });
    expect(again.body.data.slug).toBe('paid-orders-2');

    const list = await call('GET', BASE, readerTok);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ status: 'success', total: 2 });
    expect(list.body.data.map((d: { slug: string }) => d.slug).sort()).toEqual(['paid-orders', 'paid-orders-2']);

    const one = await call('GET', `${BASE}paid-orders/`, readerTok);
    expect(one.body).toMatchObject({ status: 'success', data: { slug: 'paid-orders' } });

    const put = await call('PUT', `${BASE}paid-orders-2/`, ownerTok, { description: 'two', query_text: 'SELECT 2 AS two' });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ description: 'two', query_text: 'SELECT 2 AS two', connection_type: 'internal' });

    const del = await call('DELETE', `${BASE}paid-orders-2/`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ status: 'success', message: expect.any(String) });
    expect((await call('GET', `${BASE}paid-orders-2/`)).status).toBe(404);
    expect((await call('GET', `${BASE}paid-orders-2/`)).body).toMatchObject({ status: 'error', code: 'not_found' });
  });

  test('external queries need a connection secret of an analytics type; switching to internal clears secret_key', async () => {
    const missing = await create({ name: 'Ext', secret_key: 'nope', query_text: 'SELECT 1' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ status: 'error', code: 'SecretResolutionError' });
    const noKey = await create({ name: 'Ext', query_text: 'SELECT 1' });
    expect(noKey.body).toMatchObject({ code: 'QueryValidationError', errors: { secret_key: [expect.any(String)] } });

    const secret = await t.call('POST', '/api/secrets/', {
      host: HOST,
      token: ownerTok,
      body: {
        key: 'wh',
        secret_type: 'analytics-postgresql',
        value: { host: '127.0.0.1', port: 5432, database: 'x', username: 'u', password: 'pw-never-shown' },
      },
    });
    expect(secret.status).toBe(201);
    const wrongType = await t.call('POST', '/api/secrets/', {
      host: HOST,
      token: ownerTok,
      body: { key: 'plain', secret_type: 'json', value: { a: 1 } },
    });
    expect(wrongType.status).toBe(201);
    expect((await create({ name: 'Ext', secret_key: 'plain', query_text: 'SELECT 1' })).body).toMatchObject({
      code: 'SecretResolutionError',
      message: 'Unsupported analytics datasource.',
    });

    const ext = await create({ name: 'Ext', secret_key: 'wh', query_text: 'SELECT {{ a }} AS a' });
    expect(ext.status).toBe(201);
    expect(ext.body.data).toMatchObject({ connection_type: 'external', secret_key: 'wh' });
    const switched = await call('PUT', `${BASE}ext/`, ownerTok, { connection_type: 'internal' });
    expect(switched.status).toBe(200);
    expect(switched.body.data).toMatchObject({ connection_type: 'internal', secret_key: null });
    expect(JSON.stringify(switched.body)).not.toContain('pw-never-shown');
    const internalWithKey = await create({ name: 'Bad', connection_type: 'internal', secret_key: 'wh', query_text: 'SELECT 1' });
    expect(internalWithKey.body).toMatchObject({ code: 'QueryValidationError', errors: { secret_key: [expect.any(String)] } });
    const internalSecretRef = await create({
      name: 'Bad',
      connection_type: 'internal',
      query_text: 'SELECT {{ secret.wh.password }} AS p',
    });
    expect(internalSecretRef.body).toMatchObject({ code: 'QueryValidationError' });
  });

  test('bad bodies are 400 QueryValidationError with field errors, never 500', async () => {
    for (const body of [
      null,
      [],
      'x',
      { name: '' },
      { name: 'x', connection_type: 'other', query_text: 'SELECT 1' },
      { name: 'x'.repeat(201), connection_type: 'internal', query_text: 'SELECT 1' },
      { name: 'x', connection_type: 'internal', query_text: 'SELECT 1', tags: 'a' },
    ]) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.status).toBe('error');
    }
  });

  test('permissions: analytics:read reads, analytics:write writes, analytics:execute runs; outsiders get 403', async () => {
    expect((await create({ name: 'R', connection_type: 'internal', query_text: 'SELECT 1' }, readerTok)).status).toBe(403);
    expect((await call('PUT', `${BASE}paid-orders/`, readerTok, { name: 'z' })).status).toBe(403);
    expect((await call('DELETE', `${BASE}paid-orders/`, readerTok)).status).toBe(403);
    expect((await run('paid-orders', {}, readerTok)).status).toBe(403);
    expect((await run('paid-orders', {}, runnerTok)).status).toBe(200);
    expect((await call('GET', BASE, outsiderTok)).status).toBe(403);
    expect((await t.call('GET', BASE, { host: HOST })).status).toBe(401);
  });
});

describe('templates and validation', () => {
  test.each([
    ['DELETE FROM orders', /DELETE/],
    ['WITH gone AS (DELETE FROM orders RETURNING *) SELECT * FROM gone', /DELETE/],
    ['SELECT * FROM (SELECT 1) s WHERE EXISTS (WITH x AS (UPDATE orders SET amount = 0 RETURNING 1) SELECT 1 FROM x)', /./],
    ['SELECT 1; DROP TABLE orders', /one statement/],
    ['SELECT pg_sleep(5)', /pg_sleep/],
    ['SELECT 1 FROM orders WHERE id IN (SELECT pg_catalog.pg_sleep(1)::int)', /pg_sleep/],
    ["SELECT set_config('role', 'postgres', false)", /set_config/],
    ["SELECT query_to_xml('DELETE FROM orders', true, true, '')", /query_to_xml/],
    ['SELECT * INTO copy FROM orders', /INTO/],
    ['SELECT * FROM orders FOR UPDATE', /FOR UPDATE/],
    ['SELECT * FROM public.users', /schema "public"/],
    ['SELECT * FROM pg_authid', /System catalogs/],
    ['CREATE TABLE x (a int)', /CREATE/],
    ['TRUNCATE orders', /TRUNCATE/],
    ['GRANT SELECT ON orders TO public', /GRANT/],
  ])('%s is refused', async (sql, message) => {
    const res = await create({ name: 'Bad', connection_type: 'internal', query_text: sql });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', code: 'QueryValidationError' });
    expect(res.body.errors.query_text[0]).toMatch(message);
  });

  test('unparseable text names the position in the template', async () => {
    const res = await create({
      name: 'Bad',
      connection_type: 'internal',
      query_text: 'SELECT amount FROM orders WHERE id = {{ id }} AND AND',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.query_text[0]).toMatch(/Syntax error.*position 5[0-9]/);
    const unclosed = await create({ name: 'Bad', connection_type: 'internal', query_text: 'SELECT {{ a' });
    expect(unclosed.body.errors.query_text[0]).toMatch(/position 7/);
    const quoted = await create({ name: 'Bad', connection_type: 'internal', query_text: "SELECT '{{ a }}'" });
    expect(quoted.body.errors.query_text[0]).toMatch(/quoted/);
  });

  test('parameters are bound: logical names rewritten, missing parameter 400, secret references in params refused', async () => {
    const res = await create({
      name: 'By status',
      connection_type: 'internal',
      query_text:
        'SELECT status, count(*) AS n, sum(amount) AS total FROM orders WHERE amount > {{ min }} AND status = {{ status }} GROUP BY status',
    });
    expect(res.status).toBe(201);
    const ok = await run('by-status', { min: 100, status: 'paid' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      status: 'success',
      message: expect.any(String),
      data: [{ status: 'paid', n: 10, total: 1110 }],
      total: 1,
      truncated: false,
      execution_key: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const missing = await run('by-status', { min: 1 });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'QueryValidationError', errors: { 'params.status': [expect.any(String)] } });
    const secretRef = await run('by-status', { min: 1, status: '{{ secret.wh.password }}' });
    expect(secretRef.status).toBe(400);
    expect(secretRef.body.errors['params.status'][0]).toMatch(/Secret references/);
    const injected = await run('by-status', { min: 0, status: "paid' OR '1'='1" });
    expect(injected.body.data).toEqual([]);
  });

  test('physical names work too; the user profile is bound', async () => {
    await create({ name: 'Physical', connection_type: 'internal', query_text: 'SELECT count(*) AS n FROM web_orders' });
    expect((await run('physical', {})).body.data).toEqual([{ n: 120 }]);
    await create({
      name: 'Me',
      connection_type: 'internal',
      query_text: 'SELECT {{ secret.user_profile.username }}::text AS me, {{ secret.user_profile.is_staff }}::boolean AS staff',
    });
    const me = await run('me', {});
    expect(me.body.data[0]).toMatchObject({ me: expect.any(String), staff: false });
  });
});

describe('execution', () => {
  test('at most ANALYTICS_MAX_ROWS rows, truncated: true', async () => {
    await create({ name: 'All', connection_type: 'internal', query_text: 'SELECT id FROM orders ORDER BY id' });
    const res = await run('all', {});
    expect(res.body).toMatchObject({ total: 50, truncated: true });
    expect(res.body.data[49]).toEqual({ id: 50 });
  });

  test('a runtime failure is 422 QueryExecutionError; the query is read-only', async () => {
    await create({ name: 'Div', connection_type: 'internal', query_text: 'SELECT 1 / {{ d }} AS x' });
    const res = await run('div', { d: 0 });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ status: 'error', code: 'QueryExecutionError', details: { engine_code: '22012' } });
    await create({ name: 'Nextval', connection_type: 'internal', query_text: "SELECT nextval('x')" });
    expect((await run('nextval', {})).status).toBe(422);
  });

  test('executions are logged with key, engine, rows and outcome, never parameters', async () => {
    expect((await run('by-status', { min: 5 })).status).toBe(400);
    const res = await run('by-status', { min: 5, status: 'needle-param-value' });
    const key = res.body.execution_key;
    const list = await call('GET', `${BASE}by-status/executions/`, readerTok);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ status: 'success', total: expect.any(Number) });
    expect(list.body.data[0]).toEqual({
      execution_key: key,
      engine: 'internal',
      status: 'success',
      error_code: null,
      row_count: 0,
      truncated: false,
      duration_ms: expect.any(Number),
      user: expect.any(Number),
      created_at: expect.any(String),
    });
    expect(list.body.data.map((e: { status: string; error_code: string }) => e.error_code)).toContain('QueryValidationError');
    expect(t.logs.some((l) => l.includes(key))).toBe(true);
    expect(t.logs.some((l) => l.includes('needle-param-value'))).toBe(false);
  });
});

describe('concurrency', () => {
  test("a site's executions beyond ANALYTICS_MAX_CONCURRENT wait their turn (seen in pg_stat_activity)", async () => {
    const made = await create({
      name: 'Slow Cross',
      connection_type: 'internal',
      query_text: 'SELECT count(*) AS n FROM orders a, orders b, orders c WHERE a.amount + b.amount + c.amount > 0',
    });
    expect(made.status).toBe(201);
    let done = false;
    let most = 0;
    const watch = (async () => {
      while (!done) {
        const [row] = await q(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE backend_type = 'client backend' AND state = 'active' AND query LIKE '%AS analytics_result%'
              AND query NOT LIKE '%pg_stat_activity%'`,
        );
        most = Math.max(most, row.n);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const runs = await Promise.all([1, 2, 3].map(() => run('slow-cross', {})));
    done = true;
    await watch;
    expect(runs.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(most).toBe(1); // seen running, never two at once
  });
});

describe('hostile parameter values (property)', () => {
  test('1,000 values come back as data and nothing is written', async () => {
    const before = await q('SELECT count(*)::int AS n, sum(amount)::text AS s FROM shop.web_orders');
    const tables = await q(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'shop'`);
    const strings = hostileStrings(700);
    const numbers = hostileNumbers(150);
    const objects = hostileObjects(150);
    const batch = async (values: unknown[], cast: string) => {
      for (let i = 0; i < values.length; i += 100) {
        const chunk = values.slice(i, i + 100);
        const cols = chunk.map((_, j) => `{{ v${j} }}::${cast} AS c${j}`).join(', ');
        const name = `hostile-${cast}-${i}`;
        const made = await create({ name, connection_type: 'internal', query_text: `SELECT ${cols} FROM orders WHERE id = 1` });
        expect(made.status).toBe(201);
        const params = Object.fromEntries(chunk.map((v, j) => [`v${j}`, v]));
        const res = await run(made.body.data.slug, params);
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(1);
        chunk.forEach((v, j) => {
          const got = res.body.data[0][`c${j}`];
          if (cast === 'text') expect(got).toBe(typeof v === 'string' ? v : String(v));
          else expect(got).toEqual(JSON.parse(JSON.stringify(v)));
        });
      }
    };
    await batch(strings, 'text');
    await batch(numbers, 'text');
    await batch(objects, 'jsonb');
    expect(await q('SELECT count(*)::int AS n, sum(amount)::text AS s FROM shop.web_orders')).toEqual(before);
    expect(await q(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'shop'`)).toEqual(tables);
  });
});

describe('GraphQL', () => {
  const gql = (query: string, variables: Record<string, unknown> = {}, token = ownerTok) =>
    t.call('POST', '/graphql', { host: HOST, token, body: { query, variables } });

  test('the same services: create, read, App.queries, execute, executions, update, delete', async () => {
    const made = await gql(
      'mutation ($i: AnalyticsQueryInput!) { createAnalyticsQuery(app: "web", input: $i) { slug connectionType secretKey queryText } }',
      { i: { name: 'Gql count', connectionType: 'internal', queryText: 'SELECT count(*) AS n FROM orders WHERE amount > {{ min }}' } },
    );
    expect(made.body.errors).toBeUndefined();
    expect(made.body.data.createAnalyticsQuery).toEqual({
      slug: 'gql-count',
      connectionType: 'internal',
      secretKey: null,
      queryText: 'SELECT count(*) AS n FROM orders WHERE amount > {{ min }}',
    });
    const one = await gql(
      '{ analyticsQuery(app: "web", slug: "gql-count") { name slug } missing: analyticsQuery(app: "web", slug: "nope") { slug } }',
    );
    expect(one.body.data).toEqual({ analyticsQuery: { name: 'Gql count', slug: 'gql-count' }, missing: null });
    const list = await gql('{ app(slug: "web") { queries(pageSize: 100) { total items { slug } } } }');
    expect(list.body.data.app.queries.items.map((q: { slug: string }) => q.slug)).toContain('gql-count');
    const ran = await gql(
      'mutation { executeAnalyticsQuery(app: "web", slug: "gql-count", params: {min: 100}) { rows total truncated executionKey } }',
    );
    expect(ran.body.data.executeAnalyticsQuery).toEqual({
      rows: [{ n: 20 }],
      total: 1,
      truncated: false,
      executionKey: expect.any(String),
    });
    const execs = await gql(
      '{ analyticsExecutions(app: "web", slug: "gql-count") { total items { executionKey engine status rowCount } } }',
    );
    expect(execs.body.data.analyticsExecutions).toEqual({
      total: 1,
      items: [{ executionKey: ran.body.data.executeAnalyticsQuery.executionKey, engine: 'internal', status: 'success', rowCount: 1 }],
    });
    const upd = await gql('mutation { updateAnalyticsQuery(app: "web", slug: "gql-count", input: {description: "d"}) { description } }');
    expect(upd.body.data.updateAnalyticsQuery).toEqual({ description: 'd' });
    expect((await gql('mutation { deleteAnalyticsQuery(app: "web", slug: "gql-count") { slug } }')).body.data).toEqual({
      deleteAnalyticsQuery: { slug: 'gql-count' },
    });
  });

  test('errors carry the REST codes', async () => {
    const invalid = await gql(
      'mutation { createAnalyticsQuery(app: "web", input: {name: "x", connectionType: "internal", queryText: "DELETE FROM orders"}) { slug } }',
    );
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'QueryValidationError' });
    const missing = await gql('mutation { executeAnalyticsQuery(app: "web", slug: "by-status", params: {}) { total } }');
    expect(missing.body.errors[0].extensions).toMatchObject({ code: 'QueryValidationError' });
    const failed = await gql('mutation { executeAnalyticsQuery(app: "web", slug: "div", params: {d: 0}) { total } }');
    expect(failed.body.errors[0].extensions).toMatchObject({ code: 'QueryExecutionError' });
    const denied = await gql('mutation { executeAnalyticsQuery(app: "web", slug: "div", params: {d: 1}) { total } }', {}, readerTok);
    expect(denied.body.errors[0].extensions).toMatchObject({ code: 'permission_denied' });
    const secretRef = await gql(
      'mutation { createAnalyticsQuery(app: "web", input: {name: "x", secretKey: "nope", queryText: "SELECT 1"}) { slug } }',
    );
    expect(secretRef.body.errors[0].extensions).toMatchObject({ code: 'SecretResolutionError' });
  });
});
