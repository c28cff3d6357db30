// What other modules may use of the data module: the physical tables behind an app's
// datatables (analytics rewrites logical names to them through the parse tree).
import type { RequestContext } from '../core/context.js';
import { catalogueRepository } from './table/catalogue.repository.js';

/**
 * Logical name → physical table name (in the site's schema) of app `appId`'s flat tables.
 * jsonb tables share one store per app and have no table of their own: they are not listed.
 */
export async function physicalTableNames(ctx: RequestContext, appId: number): Promise<Map<string, string>> {
  const rows = await catalogueRepository.listForApp(ctx.platform.pool, appId);
  return new Map(rows.filter((r) => r.provider === 'flat_table').map((r) => [r.name, r.physicalName]));
}
