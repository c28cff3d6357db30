// Redis is optional at run time (issue 10 item 7; DECISIONS §1): unreachable at start → a
// warning and in-memory rate limits; lost later → requests still answered (the limiter's
// in-memory insurance counts) and /readyz names it; back → ready again.
import net from 'node:net';
import { startTestApp, type TestApp } from '../support/app.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const REDIS = new URL(process.env.REDIS_URL || 'redis://127.0.0.1:6379');

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('REDIS_URL unreachable at start', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, RATE_LIMIT_STANDARD: '3/minute' });
  });
  afterAll(() => t.close());

  test('the platform starts with a warning; limits count in memory; /readyz says redis is down', async () => {
    // The start itself is the check: it used to fail here.
    const token = t.tokenFor(await t.createUser());
    for (let i = 0; i < 3; i++) expect((await t.call('GET', '/api/users/me/', { token })).status).toBe(200);
    expect((await t.call('GET', '/api/users/me/', { token })).status).toBe(429);
    const ready = await t.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ checks: { database: 'ok', redis: 'down' } });
    expect(ready.body.detail).toContain('redis');
  });
});

describe('Redis lost while running', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy(REDIS.hostname, Number(REDIS.port || 6379));
    t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, RATE_LIMIT_STANDARD: '5/minute' });
  });
  afterAll(async () => {
    await t.close();
    await proxy.close();
  });

  test('requests are still answered and limited; /readyz reports it; back up, ready again', async () => {
    expect((await t.call('GET', '/readyz')).body.checks).toEqual({ database: 'ok', redis: 'ok' });
    const token = t.tokenFor(await t.createUser());
    expect((await t.call('GET', '/api/users/me/', { token })).status).toBe(200);
    await proxy.cut();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await t.call('GET', '/api/users/me/', { token })).status);
    // The insurance limiter counts from zero in this process: 5 pass, then 429.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(4);
    expect(statuses.at(-1)).toBe(429);
    const down = await t.call('GET', '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.checks.redis).toBe('down');
    await proxy.restore();
    let ready = 503;
    for (let i = 0; i < 100 && ready !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      ready = (await t.call('GET', '/readyz')).status;
    }
    expect(ready).toBe(200);
  });
});
