// `npm run routes`: writes schema/rest/ROUTES.md, the documented REST routes with their
// status against the live route table. `npm run routes -- --check` only reports staleness
// (exit 1), for CI.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODULES } from '../subgraphs/modules.js';
import { DOCUMENTED_ROUTES, EXTRA_ROUTES } from '../schema/rest/documented-routes.js';
import { buildInventory, renderRoutesMd } from '../schema/rest/inventory.js';

export const ROUTES_MD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../schema/rest/ROUTES.md');

function main(): void {
  const inventory = buildInventory(
    MODULES.flatMap((m) => m.routes),
    DOCUMENTED_ROUTES,
    EXTRA_ROUTES,
  );
  const text = renderRoutesMd(inventory);
  const current = fs.existsSync(ROUTES_MD) ? fs.readFileSync(ROUTES_MD, 'utf8') : '';
  if (process.argv.includes('--check')) {
    if (current !== text) {
      process.stderr.write('schema/rest/ROUTES.md is stale: run `npm run routes`.\n');
      process.exit(1);
    }
    return;
  }
  fs.writeFileSync(ROUTES_MD, text);
  const done = inventory.rows.filter((r) => r.done).length;
  process.stdout.write(
    `${path.relative(process.cwd(), ROUTES_MD)}: ${inventory.rows.length} documented, ${done} done, ${inventory.extras.length} extra\n`,
  );
  const unlisted = inventory.extras.filter((e) => e.reason === null);
  for (const e of unlisted) process.stderr.write(`undocumented and not in EXTRA_ROUTES: ${e.route.method} ${e.route.path}\n`);
}

main();
