// Once per test run: a real PostgreSQL (DATABASE_URL when set, else an embedded server in a
// fresh temporary directory) and a template database with the platform migrations applied.
// Every test file then clones the template into a database of its own (test/support/db.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../subgraphs/core/embedded-postgres.js';
import { migrate } from '../../subgraphs/core/migrate.js';

/** Unique per run, so that two runs against one server never drop each other's template. */
export const TEMPLATE_DB = `tenantry_tpl_${process.pid}_${Date.now().toString(36)}`;

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export default async function globalSetup(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenantry-test-'));
    fs.chmodSync(dir, 0o755);
    const server = await startEmbeddedPostgres(path.join(dir, 'pg'));
    (globalThis as Record<string, unknown>).__TEST_PG__ = { server, dir };
    adminUrl = server.url('postgres');
    process.stdout.write(`\n[tests] embedded PostgreSQL on port ${server.port}\n`);
  } else {
    process.stdout.write('\n[tests] PostgreSQL from DATABASE_URL\n');
  }
  process.env.TEST_PG_ADMIN_URL = adminUrl;
  process.env.TEST_PG_TEMPLATE = TEMPLATE_DB;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: withDatabase(adminUrl, TEMPLATE_DB) });
  await migrate(pool);
  await pool.end();
}
