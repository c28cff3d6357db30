import fs from 'node:fs';
import type { EmbeddedServer } from '../../subgraphs/core/embedded-postgres.js';

export default async function globalTeardown(): Promise<void> {
  const state = (globalThis as Record<string, unknown>).__TEST_PG__ as { server: EmbeddedServer; dir: string } | undefined;
  if (!state) return;
  await state.server.stop();
  fs.rmSync(state.dir, { recursive: true, force: true });
}
