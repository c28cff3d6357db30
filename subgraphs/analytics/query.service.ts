// Saved analytics queries of an app, as the caller may see them. Queries are saved through
// the analytics routes (DECISIONS §10); an app starts with none.
import type { RequestContext } from '../core/context.js';
import { parsePage, type Query } from '../core/listing.js';
import { requireApp } from '../tenancy/tenancy.api.js';

export interface AnalyticsQueryView {
  id: string;
  name: string;
  slug: string;
  description: string;
  connectionType: 'external' | 'internal';
  secretKey: string | null;
  queryText: string;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The saved queries of app `appId` (UUID): 404 when the app is not visible
 * to the caller, 403 without `analytics:read` on its site.
 */
export async function listQueries(ctx: RequestContext, appId: string, query: Query) {
  await requireApp(ctx, appId, 'analytics:read');
  const page = parsePage(query);
  const items: AnalyticsQueryView[] = [];
  return { page, count: items.length, items };
}
