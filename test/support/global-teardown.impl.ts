// Once per test run, after the last file: drop the run's template database (an external
// server keeps nothing of the run), or stop the embedded server and remove its directory.
import fs from 'node:fs';
import pg from 'pg';
import type { EmbeddedServer } from '../../subgraphs/core/embedded-postgres.js';

export default async function globalTeardown(): Promise<void> {
  const state = (globalThis as Record<string, unknown>).__TEST_PG__ as { server: EmbeddedServer; dir: string } | undefined;
  if (state) {
    await state.server.stop();
    fs.rmSync(state.dir, { recursive: true, force: true });
    return;
  }
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  const template = process.env.TEST_PG_TEMPLATE;
  if (!adminUrl || !template) return;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
