// A database of its own for each test file, cloned from the migrated template.
import crypto from 'node:crypto';
import pg from 'pg';

/** The run's migrated template (test/support/global-setup.impl.ts names it per run). */
function templateDb(): string {
  const name = process.env.TEST_PG_TEMPLATE;
  if (!name) throw new Error('TEST_PG_TEMPLATE is not set: run the tests through `npm test`');
  return name;
}

export function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests through `npm test`');
  return url;
}

export function databaseUrl(database: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${database}`;
  return u.toString();
}

export async function createTestDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateDb()}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: databaseUrl(name),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await c.end();
    },
  };
}
