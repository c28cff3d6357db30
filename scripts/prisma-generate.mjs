// Runs `prisma generate` offline. The Prisma CLI insists on a schema-engine binary it
// would otherwise download; generation does not use it, so any existing file will do.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const args = ['node_modules/prisma/build/index.js', 'generate', ...process.argv.slice(2)];
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: self, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
const run = spawnSync(process.execPath, args, { stdio: 'inherit', env });
process.exit(run.status ?? 1);
