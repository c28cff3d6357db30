// How many datatables each app has, for the `table_count` of the tenancy module's app views:
// one catalogue query for the whole page of apps.
import type { RequestContext } from '../core/context.js';
import { tableCounts } from './table/table.service.js';

export async function tableCountsByApp(ctx: RequestContext, appIds: number[]): Promise<Map<number, number>> {
  if (appIds.length === 0) return new Map();
  return tableCounts(ctx, appIds);
}
