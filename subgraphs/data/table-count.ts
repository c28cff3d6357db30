// How many datatables each app has, for the `table_count` of the tenancy module's app views.
// Datatables are the data module's own records; until its schema endpoint stores any, every
// app has none, so no query is needed.
import type { RequestContext } from '../core/context.js';

export async function tableCountsByApp(_ctx: RequestContext, _appIds: number[]): Promise<Map<number, number>> {
  return new Map();
}
