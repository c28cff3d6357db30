// External analytics engines (seed 2 "Connection secret values", "Execution safety"; DECISIONS
// §10) against real servers: PostgreSQL and Redshift's protocol (the test's own database),
// MariaDB (a database and a SELECT-only account made for this run), ClickHouse (when a server
// answers at ANALYTICS_TEST_CLICKHOUSE, default 127.0.0.1:8123) and a local search-engine fake
// with the real client. Each gets 1,000 hostile parameter values back as data, nothing written.
import crypto from 'node:crypto';
import mysql from 'mysql2/promise';
import { startTestApp, type TestApp } from '../support/app.js';
import { hostileNumbers, hostileObjects, hostileStrings } from '../support/hostile-values.js';
import { startSearchFake, type SearchFake } from '../support/search-fake.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

const HOST = 'ext.analytics.test';
const BASE = '/api/apps/web/analytics/queries/';
const MARIADB = { host: process.env.ANALYTICS_TEST_MARIADB_HOST ?? '127.0.0.1', port: 3306, user: 'root', password: '' };
const [CH_HOST, CH_PORT] = (process.env.ANALYTICS_TEST_CLICKHOUSE ?? '127.0.0.1:8123').split(':');

let t: TestApp;
let tok: string;
let dbName: string;
let fake: SearchFake;
const suffix = crypto.randomBytes(4).toString('hex');
const myDb = `analytics_test_${suffix}`;
const myUser = `an_ro_${suffix}`;
const myPass = `ro-pass-${suffix}`;
let maria: mysql.Connection | null = null;
let clickhouse = false;

const q = async (sql: string, params: unknown[] = []) => (await t.platform.pool.query(sql, params)).rows;
const call = (method: string, path: string, body?: unknown) => t.call(method, path, { host: HOST, token: tok, body });
const secret = (key: string, type: string, value: unknown) =>
  call('POST', '/api/secrets/', { key, secret_type: type, value }).then((r) => {
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  });
async function query(name: string, secretKey: string, text: string) {
  const res = await call('POST', BASE, { name, secret_key: secretKey, query_text: text });
  return res;
}
const run = (slug: string, params: unknown) => call('POST', `${BASE}${slug}/execute/`, { params });

async function chQuery(sql: string): Promise<string> {
  const res = await fetch(`http://${CH_HOST}:${CH_PORT}/?query=${encodeURIComponent(sql)}`, { method: 'POST' });
  if (!res.ok) throw new Error(await res.text());
  return res.text();
}

let pgServer: { host: string; port: number; username: string; password: string };

beforeAll(async () => {
  t = await startTestApp({ ANALYTICS_MAX_ROWS: '50', ANALYTICS_TIMEOUT_MS: '1500' });
  const owner = await t.createUser();
  tok = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'ext-org', owner.id);
  const site = await insertSite(t.platform, org.id, 'ext', HOST);
  await insertApp(t.platform, site.id, 'web');
  dbName = new URL(t.platform.databaseUrl).pathname.slice(1);
  await q('CREATE SCHEMA ext_src');
  await q(
    `CREATE TABLE ext_src.sales AS SELECT g AS id, CASE WHEN g % 2 = 0 THEN 'north' ELSE 'south' END AS region, g AS amount FROM generate_series(1, 100) g`,
  );
  // The test database's own server (the machine's on 5432 in CI, or the run's embedded one).
  const u = new URL(t.platform.databaseUrl);
  pgServer = {
    host: u.hostname,
    port: Number(u.port || 5432),
    username: decodeURIComponent(u.username) || 'postgres',
    password: decodeURIComponent(u.password) || 'unused-trust',
  };
  const pg = { ...pgServer, database: dbName };
  await secret('pg', 'analytics-postgresql', pg);
  await secret('rs', 'analytics-redshift', pg);
  await secret('lookup', 'json', { region: 'north', min: 90 });
  await secret('down', 'analytics-postgresql', { ...pg, port: 1, password: 'pw-down-never-shown' });

  maria = await mysql.createConnection(MARIADB);
  await maria.query(`CREATE DATABASE ${myDb}`);
  await maria.query(`CREATE TABLE ${myDb}.sales (id INT PRIMARY KEY, region VARCHAR(20), amount INT)`);
  await maria.query(`INSERT INTO ${myDb}.sales SELECT seq, IF(seq % 2 = 0, 'north', 'south'), seq FROM ${myDb}.seq_1_to_100`);
  await maria.query(`CREATE USER '${myUser}'@'%' IDENTIFIED BY '${myPass}'`);
  await maria.query(`GRANT SELECT ON ${myDb}.* TO '${myUser}'@'%'`);
  await secret('maria', 'analytics-mysql', { host: MARIADB.host, port: 3306, database: myDb, username: myUser, password: myPass });

  try {
    await chQuery('SELECT 1');
    clickhouse = true;
  } catch {
    console.log(
      `ClickHouse tests skipped: no ClickHouse server answers at ${CH_HOST}:${CH_PORT} (set ANALYTICS_TEST_CLICKHOUSE=host:port).`,
    );
  }
  if (clickhouse) {
    await chQuery(`CREATE DATABASE IF NOT EXISTS analytics_${suffix}`);
    await chQuery(`CREATE TABLE analytics_${suffix}.sales (id UInt32, region String, amount UInt32) ENGINE = Memory`);
    await chQuery(
      `INSERT INTO analytics_${suffix}.sales SELECT number + 1, if((number + 1) % 2 = 0, 'north', 'south'), number + 1 FROM system.numbers LIMIT 100`,
    );
    await secret('ch', 'analytics-clickhouse', {
      host: CH_HOST,
      port: Number(CH_PORT),
      database: `analytics_${suffix}`,
      username: 'default',
      password: '',
      secure: false,
    });
  }

  fake = await startSearchFake(
    'orders',
    Array.from({ length: 100 }, (_, i) => ({ id: i + 1, region: (i + 1) % 2 === 0 ? 'north' : 'south', amount: i + 1 })),
  );
  await secret('es', 'analytics-elasticsearch', { host: fake.url, index: 'orders', max_result_rows: 1000 });
});

afterAll(async () => {
  await t.close();
  await fake?.close();
  if (maria) {
    await maria.query(`DROP DATABASE IF EXISTS ${myDb}`).catch(() => undefined);
    await maria.query(`DROP USER IF EXISTS '${myUser}'@'%'`).catch(() => undefined);
    await maria.end();
  }
  if (clickhouse) await chQuery(`DROP DATABASE IF EXISTS analytics_${suffix}`).catch(() => undefined);
});

describe('PostgreSQL and Redshift', () => {
  test('parameters and secret references bound; rows cut at the cap', async () => {
    expect(
      (
        await query(
          'Pg regions',
          'pg',
          'SELECT region, sum(amount)::int AS total FROM ext_src.sales WHERE amount > {{ min }} GROUP BY region ORDER BY region',
        )
      ).status,
    ).toBe(201);
    const res = await run('pg-regions', { min: 90 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { region: 'north', total: 480 },
      { region: 'south', total: 475 },
    ]);
    await query(
      'Pg lookup',
      'pg',
      'SELECT count(*)::int AS n FROM ext_src.sales WHERE region = {{ secret.lookup.region }} AND amount > {{ secret.lookup.min }}',
    );
    expect((await run('pg-lookup', {})).body.data).toEqual([{ n: 5 }]);
    await query('Pg all', 'pg', 'SELECT id FROM ext_src.sales ORDER BY id');
    expect((await run('pg-all', {})).body).toMatchObject({ total: 50, truncated: true });
    await query('Rs all', 'rs', 'SELECT id FROM ext_src.sales ORDER BY id');
    expect((await run('rs-all', {})).body).toMatchObject({ total: 50, truncated: true });
  });

  test('time-out 422, unreachable server 502 without the password, a changed secret gets a new pool', async () => {
    await query('Pg slow', 'pg', 'SELECT count(*) FROM generate_series(1, 10000000000::bigint)');
    const slow = await run('pg-slow', {});
    expect(slow.status).toBe(422);
    expect(slow.body).toMatchObject({ code: 'QueryExecutionError', details: { engine_code: '57014' } });
    await query('Pg down', 'down', 'SELECT 1 AS one');
    const down = await run('pg-down', {});
    expect(down.status).toBe(502);
    expect(down.body).toMatchObject({ status: 'error', code: 'ConnectorError' });
    expect(JSON.stringify(down.body)).not.toContain('pw-down-never-shown');
    const fixed = await call('PUT', '/api/secrets/down/', {
      key: 'down',
      secret_type: 'analytics-postgresql',
      value: { ...pgServer, database: dbName },
    });
    expect(fixed.status).toBe(200);
    expect((await run('pg-down', {})).body.data).toEqual([{ one: 1 }]);
  });
});

describe('MariaDB', () => {
  test('rows, secret references, cap; blocked statements and functions refused', async () => {
    expect(
      (
        await query(
          'My regions',
          'maria',
          'SELECT region, CAST(SUM(amount) AS SIGNED) AS total FROM sales WHERE amount > {{ min }} GROUP BY region ORDER BY region',
        )
      ).status,
    ).toBe(201);
    expect((await run('my-regions', { min: 90 })).body.data).toEqual([
      { region: 'north', total: '480' },
      { region: 'south', total: '475' },
    ]);
    await query('My all', 'maria', 'SELECT id FROM sales ORDER BY id');
    expect((await run('my-all', {})).body).toMatchObject({ total: 50, truncated: true });
    for (const sql of [
      'DELETE FROM sales',
      'SELECT sleep(5)',
      "SELECT load_file('/etc/passwd')",
      'SELECT 1; DROP TABLE sales',
      "SELECT * FROM sales INTO OUTFILE '/tmp/x'",
      'SELECT * FROM sales FOR UPDATE',
    ]) {
      const res = await query('My bad', 'maria', sql);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('QueryValidationError');
    }
  });

  test('server-side time-out 422', async () => {
    await query('My slow', 'maria', 'SELECT COUNT(*) AS n FROM sales a, sales b, sales c, sales d, sales e');
    const res = await run('my-slow', {});
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('QueryExecutionError');
  });
});

describe('ClickHouse', () => {
  test('rows with readonly=1, literals, cap; blocked functions and statements refused', async () => {
    if (!clickhouse) return console.log('skipped: no ClickHouse server');
    expect(
      (
        await query(
          'Ch regions',
          'ch',
          'SELECT region, toUInt32(sum(amount)) AS total FROM sales WHERE amount > {{ min }} AND region != {{ none }} GROUP BY region ORDER BY region',
        )
      ).status,
    ).toBe(201);
    const res = await run('ch-regions', { min: 90, none: "x' OR 1=1 --" });
    if (res.status !== 200) console.log(JSON.stringify(res.body));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { region: 'north', total: 480 },
      { region: 'south', total: 475 },
    ]);
    await query('Ch all', 'ch', 'SELECT id FROM sales ORDER BY id');
    expect((await run('ch-all', {})).body).toMatchObject({ total: 50, truncated: true });
    for (const sql of [
      "SELECT * FROM file('/etc/passwd', 'TSV', 'a String')",
      "SELECT * FROM url('http://x', 'TSV', 'a String')",
      'INSERT INTO sales VALUES (1, 2, 3)',
      'SELECT sleep(3)',
      'SELECT 1; DROP TABLE sales',
      "SELECT * FROM remote('h', system.one)",
      'SELECT 1 SETTINGS readonly = 0',
    ]) {
      const bad = await query('Ch bad', 'ch', sql);
      expect(bad.status).toBe(400);
    }
  });
});

describe('search engine', () => {
  test('only _search; values are JSON data; script and runtime_mappings refused', async () => {
    expect(
      (
        await query(
          'Es north',
          'es',
          '{"query": {"bool": {"filter": [{"term": {"region": "{{ region }}"}}, {"range": {"amount": {"gt": {{ min }}}}}]}}}',
        )
      ).status,
    ).toBe(201);
    const res = await run('es-north', { region: 'north', min: 90 });
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { id: number }) => r.id)).toEqual([92, 94, 96, 98, 100]);
    await query('Es all', 'es', '{"query": {"match_all": {}}}');
    expect((await run('es-all', {})).body).toMatchObject({ total: 50, truncated: true });
    expect(fake.paths.every((p) => p === 'GET /' || p.endsWith('/orders/_search'))).toBe(true);
    for (const body of [
      '{"query": {"script": {"script": "1"}}}',
      '{"runtime_mappings": {}}',
      '{"aggs": {"x": {"scripted_metric": {}}}}',
      'not json',
      '{"query": "{{ a }}x"}',
    ]) {
      const bad = await query('Es bad', 'es', body);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('QueryValidationError');
    }
  });
});

describe('hostile parameter values (property)', () => {
  const values: unknown[] = [...hostileStrings(700, 21), ...hostileNumbers(150, 22), ...hostileObjects(150, 23)];

  async function feed(secretKey: string, engine: string, template: (n: number) => string, check: (v: unknown, got: unknown) => void) {
    for (let i = 0; i < values.length; i += 100) {
      const chunk = values.slice(i, i + 100);
      const made = await query(`hostile ${engine} ${i}`, secretKey, template(chunk.length));
      expect(made.status).toBe(201);
      const res = await run(made.body.data.slug, Object.fromEntries(chunk.map((v, j) => [`v${j}`, v])));
      if (res.status !== 200) console.log(engine, i, JSON.stringify(res.body).slice(0, 600));
      expect(res.status).toBe(200);
      chunk.forEach((v, j) => check(v, engine === 'es' ? fake.bodies.at(-1)!.query : res.body.data[0][`c${j}`]));
    }
  }
  const asText = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? Number(v) : JSON.parse(JSON.stringify(v)));

  test('PostgreSQL', async () => {
    await feed(
      'pg',
      'pg',
      (n) => `SELECT ${Array.from({ length: n }, (_, j) => `{{ v${j} }}::text AS c${j}`).join(', ')}`,
      (v, got) => {
        if (typeof v === 'string') expect(got).toBe(v);
        else if (typeof v === 'number') expect(Number(got)).toBe(v === 0 ? 0 : v);
        else expect(JSON.parse(got as string)).toEqual(v);
      },
    );
    expect(await q('SELECT count(*)::int AS n, sum(amount)::int AS s FROM ext_src.sales')).toEqual([{ n: 100, s: 5050 }]);
  });

  test('MariaDB', async () => {
    await feed(
      'maria',
      'my',
      (n) => `SELECT ${Array.from({ length: n }, (_, j) => `{{ v${j} }} AS c${j}`).join(', ')}`,
      (v, got) => {
        if (typeof v === 'string') expect(got).toBe(v);
        else if (typeof v === 'number') expect(Number(got)).toBe(v === 0 ? 0 : v);
        else expect(JSON.parse(got as string)).toEqual(v);
      },
    );
    const [rows] = await maria!.query(`SELECT COUNT(*) AS n, SUM(amount) AS s FROM ${myDb}.sales`);
    expect(rows).toEqual([{ n: 100, s: '5050' }]);
  });

  test('ClickHouse', async () => {
    if (!clickhouse) return console.log('skipped: no ClickHouse server');
    await feed(
      'ch',
      'ch',
      (n) => `SELECT ${Array.from({ length: n }, (_, j) => `{{ v${j} }} AS c${j}`).join(', ')}`,
      (v, got) => {
        if (typeof v === 'string') expect(got).toBe(v);
        // ClickHouse 18 reads and prints Float64 within one unit in the last place (denormals as 0).
        else if (typeof v === 'number') expect(Math.abs(Number(got) - v)).toBeLessThanOrEqual(Math.max(Math.abs(v) * 1e-15, 1e-300));
        else expect(JSON.parse(got as string)).toEqual(v);
      },
    );
    expect((await chQuery(`SELECT count(), sum(amount) FROM analytics_${suffix}.sales`)).trim()).toBe('100\t5050');
  });

  test('search engine', async () => {
    await feed(
      'es',
      'es',
      (n) => `{"query": {"bool": {"filter": [${Array.from({ length: n }, (_, j) => `{"term": {"f${j}": "{{ v${j} }}"}}`).join(', ')}]}}}`,
      () => undefined,
    );
    // The last body carried the last chunk's values as JSON data, in place.
    const last = values.slice(900);
    const filters = (fake.bodies.at(-1)!.query as { bool: { filter: { term: Record<string, unknown> }[] } }).bool.filter;
    last.forEach((v, j) => expect(filters[j].term[`f${j}`]).toEqual(asText(v)));
  });
});
