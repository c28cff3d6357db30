// The scheduled storage cleanup (issue 13 items 2 and 6, docs/storage.md "Crash safety"): at start
// and every STORAGE_CLEANUP_INTERVAL_MS, the queue of content left by a crash after a commit is
// finished and content no row refers to (an upload whose transaction never committed) is
// removed once older than STORAGE_ORPHAN_GRACE_MS (default one hour); content of live rows, and
// rowless content younger than that (an upload in progress), stays.
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';
import { send } from '../support/storage.js';
import { cleanupSchedule } from '../../subgraphs/storage/cleanup.js';

const HOST = 'cleanup.storage.test';
let t: TestApp;
let tok: string;

/** Waits for a condition the schedule must bring about (a bound on hanging, not a timing assertion). */
async function eventually(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  t = await startTestApp({ STORAGE_CLEANUP_INTERVAL_MS: '100' });
  const owner = await t.createUser();
  tok = t.tokenFor(owner);
  const org = await insertOrg(t.platform, 'org-cleanup', owner.id);
  const site = await insertSite(t.platform, org.id, 'site-cleanup', HOST);
  await insertApp(t.platform, site.id, 'shop');
  expect(
    (await t.call('POST', '/api/apps/shop/storage/buckets/', { host: HOST, token: tok, body: { name: 'Box', slug: 'box' } })).status,
  ).toBe(201);
});
afterAll(() => t.close());

test('a scheduled pass removes queued and orphan content and keeps live content', async () => {
  const up = await send(t, 'PUT', '/api/apps/shop/storage/buckets/box/objects/keep.txt', {
    host: HOST,
    token: tok,
    headers: { 'content-type': 'text/plain' },
    payload: 'live content',
  });
  expect(up.status).toBe(201);
  const { rows } = await t.platform.pool.query(
    `SELECT b.uuid, o.storage_key FROM storage_buckets b JOIN storage_objects o ON o.bucket_id = b.id`,
  );
  const bucketUuid = rows[0].uuid as string;
  const liveFile = path.join(t.platform.config.dataDir, 'objects', rows[0].storage_key as string);
  expect(fs.existsSync(liveFile)).toBe(true);

  // The start-up pass has run; what is left behind after it is for a later, scheduled one.
  await eventually('the start-up pass', () => cleanupSchedule(t.platform).passes >= 1);
  const passes = cleanupSchedule(t.platform).passes;

  // Keys carry their write time. The orphan is two hours old (past the default grace of one
  // hour); the queued key is new, so only the queue pass (not the orphan sweep) may remove it.
  const stamp = (ms: number) => ms.toString(16).padStart(12, '0');
  const orphanKey = `${bucketUuid}/${stamp(Date.now() - 2 * 3600_000)}${'a'.repeat(20)}.txt`;
  const queuedKey = `${bucketUuid}/${stamp(Date.now())}${'b'.repeat(20)}.txt`;
  const youngOrphan = `${bucketUuid}/${stamp(Date.now())}${'c'.repeat(20)}.txt`;
  for (const key of [orphanKey, queuedKey, youngOrphan]) {
    const file = path.join(t.platform.config.dataDir, 'objects', key);
    fs.writeFileSync(file, 'left behind');
  }
  // A write that crashed before its rename leaves a temporary file; an old one goes, a new one stays.
  const tmpDir = path.join(t.platform.config.dataDir, 'objects', '.tmp');
  fs.mkdirSync(tmpDir, { recursive: true });
  const staleTmp = path.join(tmpDir, 'crashed.part');
  const freshTmp = path.join(tmpDir, 'writing.part');
  fs.writeFileSync(staleTmp, 'half');
  fs.writeFileSync(freshTmp, 'half');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  fs.utimesSync(staleTmp, twoHoursAgo, twoHoursAgo);
  // As a crash between a delete's commit and its content removal leaves it.
  await t.platform.pool.query(`INSERT INTO storage_cleanup (provider, key) VALUES ('object_store', $1)`, [queuedKey]);

  await eventually('a scheduled pass after the start-up one', () => cleanupSchedule(t.platform).passes > passes + 1);
  for (const key of [orphanKey, queuedKey]) expect(fs.existsSync(path.join(t.platform.config.dataDir, 'objects', key))).toBe(false);
  expect((await t.platform.pool.query(`SELECT count(*)::int AS n FROM storage_cleanup`)).rows[0].n).toBe(0);
  expect(fs.existsSync(liveFile)).toBe(true);
  expect(fs.existsSync(staleTmp)).toBe(false);
  expect(fs.existsSync(freshTmp)).toBe(true);
  // Content without a row younger than the grace period may be an upload in progress: kept.
  expect(fs.existsSync(path.join(t.platform.config.dataDir, 'objects', youngOrphan))).toBe(true);
  const down = await send(t, 'GET', '/api/apps/shop/storage/buckets/box/objects/keep.txt', { host: HOST, token: tok });
  expect(down.raw.toString()).toBe('live content');
});

test('STORAGE_CLEANUP_INTERVAL_MS=0 schedules nothing', async () => {
  const quiet = await startTestApp({ STORAGE_CLEANUP_INTERVAL_MS: '0' });
  try {
    expect(quiet.platform.config.storage.cleanupIntervalMs).toBe(0);
    expect(cleanupSchedule(quiet.platform)).toMatchObject({ scheduled: false, passes: 0 });
    expect(cleanupSchedule(t.platform).scheduled).toBe(true);
  } finally {
    await quiet.close();
  }
});
