import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

test('health and me', async () => {
  expect((await t.call('GET', '/healthz')).body).toEqual({ status: 'ok' });
  const user = await t.createUser();
  const me = await t.call('GET', '/api/users/me/', { token: t.tokenFor(user) });
  expect(me.status).toBe(200);
  expect(me.body.username).toBe(user.username);
  const cloud = await t.call('GET', '/api/cloud/users/me/', { token: t.tokenFor(user) });
  expect(cloud.body.uuid).toBe(user.uuid);
});
