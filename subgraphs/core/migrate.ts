// Applies prisma/migrations/*/migration.sql in name order, each in its own transaction,
// recording what ran in `_platform_migrations`. An advisory lock serialises concurrent
// starts (several gateway processes sharing one database).
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { transactionOn } from './db.js';
import { PROJECT_ROOT } from './paths.js';

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'prisma', 'migrations');
const LOCK_ID = 727_100_001;

export function listMigrations(dir = MIGRATIONS_DIR): { name: string; sql: string }[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => ({ name, sql: fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8') }));
}

export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS _platform_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const done = new Set((await client.query<{ name: string }>('SELECT name FROM _platform_migrations')).rows.map((r) => r.name));
    for (const m of listMigrations(dir)) {
      if (done.has(m.name)) continue;
      try {
        await transactionOn(client, async (c) => {
          await c.query(m.sql);
          await c.query('INSERT INTO _platform_migrations (name) VALUES ($1)', [m.name]);
        });
      } catch (e) {
        throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
      }
      applied.push(m.name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    client.release();
  }
  return applied;
}
