// Expired refresh tokens, sessions and access-token revocations are deleted at start and every
// AUTH_PURGE_INTERVAL_MS; live ones stay. Batches of PURGE_BATCH rows until none is left.
import { credentialPurge } from '../../subgraphs/auth/auth.module.js';
import { PURGE_BATCH, tokenRepository } from '../../subgraphs/auth/token.repository.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { waitFor } from '../support/events.js';

let t: TestApp;
let userId: number;

beforeAll(async () => {
  t = await startTestApp({ AUTH_PURGE_INTERVAL_MS: '200' });
  userId = (await t.createUser()).id;
});
afterAll(() => t?.close());

const count = async (table: string, where: string) =>
  (await t.platform.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`)).rows[0].n as number;

it('a scheduled pass deletes expired credentials and keeps live ones', async () => {
  const q = t.platform.pool;
  await q.query(
    `INSERT INTO refresh_tokens (jti, family_id, user_id, expires_at) VALUES
       ('purge-old', 'fam-p', $1, now() - interval '1 minute'), ('purge-live', 'fam-p', $1, now() + interval '1 day')`,
    [userId],
  );
  await q.query(
    `INSERT INTO sessions (key_hash, user_id, csrf_token, expires_at) VALUES
       ('purge-old', $1, 'c', now() - interval '1 minute'), ('purge-live', $1, 'c', now() + interval '1 day')`,
    [userId],
  );
  await q.query(
    `INSERT INTO revoked_access_tokens (jti, expires_at) VALUES ('purge-old', now() - interval '1 minute'), ('purge-live', now() + interval '1 hour')`,
  );
  const passes = credentialPurge(t.platform).passes;
  await waitFor(async () => credentialPurge(t.platform).passes >= passes + 2, 15_000, 'two purge passes');
  for (const [table, key] of [
    ['refresh_tokens', 'jti'],
    ['sessions', 'key_hash'],
    ['revoked_access_tokens', 'jti'],
  ]) {
    expect(await count(table, `${key} = 'purge-old'`)).toBe(0);
    expect(await count(table, `${key} = 'purge-live'`)).toBe(1);
  }
  expect(credentialPurge(t.platform).scheduled).toBe(true);
});

it('AUTH_PURGE_INTERVAL_MS=0 schedules nothing; one call deletes in batches until no expired row is left', async () => {
  const quiet = await startTestApp({ AUTH_PURGE_INTERVAL_MS: '0' });
  try {
    expect(credentialPurge(quiet.platform)).toMatchObject({ scheduled: false, passes: 0 });
    const user = await quiet.createUser();
    const n = PURGE_BATCH * 2 + 7;
    await quiet.platform.pool.query(
      `INSERT INTO refresh_tokens (jti, family_id, user_id, expires_at)
       SELECT 'bulk-' || i, 'fam-bulk', $1, now() - interval '1 hour' FROM generate_series(1, $2) AS i`,
      [user.id, n],
    );
    expect(await tokenRepository.purgeExpired(quiet.platform.pool)).toMatchObject({ refreshTokens: n });
    const left = await quiet.platform.pool.query(`SELECT count(*)::int AS n FROM refresh_tokens WHERE family_id = 'fam-bulk'`);
    expect(left.rows[0].n).toBe(0);
  } finally {
    await quiet.close();
  }
});
