// The REST route inventory stays honest: ROUTES.md matches the live table, and no table route
// exists that is neither documented nor listed (with a reason) as an extra.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROUTES } from '../../gateway/rest/route-table.js';
import { DOCUMENTED_ROUTES, EXTRA_ROUTES } from '../../schema/rest/documented-routes.js';
import { buildInventory, renderRoutesMd, routeKey } from '../../schema/rest/inventory.js';

const ROUTES_MD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schema/rest/ROUTES.md');
const inventory = buildInventory(ROUTES, DOCUMENTED_ROUTES, EXTRA_ROUTES);

test('schema/rest/ROUTES.md is up to date (run `npm run routes`)', () => {
  const onDisk = fs.existsSync(ROUTES_MD) ? fs.readFileSync(ROUTES_MD, 'utf8') : '';
  expect(onDisk === renderRoutesMd(inventory) ? 'up to date' : 'stale: run `npm run routes`').toBe('up to date');
});

test('every table route is documented or listed in EXTRA_ROUTES with a reason', () => {
  const unlisted = inventory.extras.filter((e) => !e.reason).map((e) => `${e.route.method} ${e.route.path}`);
  expect(unlisted).toEqual([]);
});

test('EXTRA_ROUTES lists only routes that are served and undocumented', () => {
  expect(inventory.staleExtras).toEqual([]);
});

test('the documented list has no duplicates and uses the table path form', () => {
  const keys = DOCUMENTED_ROUTES.map((r) => routeKey(r.method, r.path));
  expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  for (const r of DOCUMENTED_ROUTES) {
    expect(r.path).toMatch(/^\/[a-z0-9_\-/:*.]*$/);
    expect(r.path.endsWith('/') || r.path.endsWith('*')).toBe(true);
    expect(r.path.startsWith('/api/')).toBe(false);
  }
});

test('the table has no two routes for the same method and path', () => {
  const keys = ROUTES.map((r) => routeKey(r.method, r.path));
  expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
});

describe('inventory rules', () => {
  const route = { method: 'GET' as const, path: '/organizations/:org/', scope: 'console' as const, module: 'tenancy', source: 's' };

  test('parameter names and the trailing slash do not matter', () => {
    expect(routeKey('get', '/organizations/:slug')).toBe(routeKey('GET', '/organizations/:org/'));
    expect(routeKey('GET', '/organizations/:org/')).not.toBe(routeKey('DELETE', '/organizations/:org/'));
  });

  test('done, not yet, extra, and scope differences', () => {
    const inv = buildInventory(
      [
        { method: 'GET', path: '/organizations/:slug/', scope: 'site', module: 'tenancy' },
        { method: 'GET', path: '/undocumented/', scope: 'any', module: 'x' },
      ],
      [route, { ...route, method: 'DELETE' }],
      [],
    );
    expect(inv.rows.map((r) => [r.route.method, r.done])).toEqual([
      ['GET', true],
      ['DELETE', false],
    ]);
    expect(inv.rows[0].note).toContain('table scope is "site"');
    expect(inv.extras).toEqual([{ route: expect.objectContaining({ path: '/undocumented/' }), reason: null }]);
    expect(renderRoutesMd(inv)).toContain('NOT LISTED in EXTRA_ROUTES');
  });
});
