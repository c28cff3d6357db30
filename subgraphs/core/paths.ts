// Where the project's own files are (schema/, prisma/migrations/). Found from this module's
// location by walking up to the package.json, so that the same code works from the TypeScript
// sources (run through tsx: tests, scripts) and from the compiled build in dist/ (`npm start`).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${start}.`);
  }
}

export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
