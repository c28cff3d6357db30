// Datatables of an app, as the caller may see them. Tables are created through the data
// service's schema endpoint (DECISIONS §6); an app starts with none.
import type { RequestContext } from '../core/context.js';
import { parsePage, type Query } from '../core/listing.js';
import { requireApp } from '../tenancy/app.service.js';

export interface DataTableView {
  name: string;
  physicalName: string;
  provider: 'flat_table' | 'jsonb';
  schema: Record<string, unknown>;
  rowCount: number;
  createdAt: Date;
}

/**
 * The datatables of app `appId` (UUID): 404 when the app is not visible
 * to the caller, 403 without `data:read` on its site.
 */
export async function listTables(ctx: RequestContext, appId: string, query: Query) {
  await requireApp(ctx, appId, 'data:read');
  const page = parsePage(query);
  const items: DataTableView[] = [];
  return { page, count: items.length, items };
}
