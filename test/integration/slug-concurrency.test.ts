// withUniqueSlug under real concurrency: parallel creates on the real PostgreSQL unique
// constraint, through the repository the platform uses.
import type pg from 'pg';
import { createPool, createPrisma, isUniqueViolation, type Db } from '../../subgraphs/core/db.js';
import { userRepository } from '../../subgraphs/tenancy/user.repository.js';
import { createTestDatabase } from '../support/db.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let prisma: Db;
const connectionErrors: Error[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 20);
  // As the platform does (subgraphs/core/platform.ts): a connection the server closes must
  // not surface as an unhandled 'error' event; any such error fails the test below.
  pool.on('error', (e) => connectionErrors.push(e));
  pool.on('connect', (client) => client.on('error', (e) => connectionErrors.push(e)));
  prisma = createPrisma(pool);
});
afterAll(async () => {
  expect(connectionErrors.map((e) => e.message)).toEqual([]);
  await prisma?.$disconnect();
  await pool?.end();
  await db?.drop();
});

// One address per username (hex: "Ann Lee" and "ann lee" must not share one, see migration 0009).
const newUser = (username: string, email = `u-${Buffer.from(username).toString('hex')}@example.test`) => ({
  username,
  email,
  passwordHash: null,
});

test('10 parallel creates whose usernames slugify alike all succeed with distinct slugs', async () => {
  const usernames = ['Ann Lee', 'ann-lee', 'ann_lee', 'ANN LEE', 'ann.lee', 'Ann  Lee', 'ann--lee', 'Ånn Lee', 'ann lee!', '-ann-lee-'];
  const users = await Promise.all(usernames.map((u) => userRepository.create(prisma, newUser(u))));
  const slugs = users.map((u) => u.slug).sort();
  expect(new Set(slugs).size).toBe(10);
  const expected = ['ann-lee', ...Array.from({ length: 9 }, (_, i) => `ann-lee-${i + 2}`)].sort();
  expect(slugs).toEqual(expected);
  // Each user got the username it asked for, and a profile row came with it.
  expect(users.map((u) => u.username).sort()).toEqual([...usernames].sort());
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM user_profiles WHERE user_id = ANY($1)', [users.map((u) => u.id)]);
  expect(rows[0].n).toBe(10);
});

test('a later create continues the sequence', async () => {
  const user = await userRepository.create(prisma, newUser('Ann Lee 2'));
  // "Ann Lee 2" slugifies to ann-lee-2, which is taken, so it is suffixed in turn.
  expect(user.slug).toBe('ann-lee-2-2');
  const next = await userRepository.create(prisma, newUser('ann~lee'));
  expect(next.slug).toBe('ann-lee-11');
});

test('a duplicate username is a conflict, not a new slug', async () => {
  // The unique username constraint refuses it (the slug retry must not swallow it).
  const failed = await userRepository.create(prisma, newUser('Ann Lee', 'another-ann@example.test')).then(
    () => null,
    (e: unknown) => e,
  );
  expect(isUniqueViolation(failed)).toBe(true);
  const { rows } = await pool.query("SELECT count(*)::int AS n FROM users WHERE username = 'Ann Lee'");
  expect(rows[0].n).toBe(1);
});

test('25 parallel creates of one name still converge', async () => {
  const users = await Promise.all(Array.from({ length: 25 }, (_, i) => userRepository.create(prisma, newUser(`Bob Ray ${'_'.repeat(i)}`))));
  const slugs = new Set(users.map((u) => u.slug));
  expect(slugs.size).toBe(25);
  expect(slugs.has('bob-ray')).toBe(true);
  expect(slugs.has('bob-ray-25')).toBe(true);
});
