// Functions of an app, as the caller may see them. Functions are created through the
// events routes (DECISIONS §7); an app starts with none.
import type { RequestContext } from '../core/context.js';
import { parsePage, type Query } from '../core/listing.js';
import { requireApp } from '../tenancy/tenancy.api.js';

export interface FunctionView {
  id: number;
  name: string;
  slug: string;
  description: string;
  executionMode: 'app' | 'proxy' | 'system';
  webhookUrl: string | null;
  timeoutSeconds: number;
  filterConditions: string | null;
  isActive: boolean;
  isPublic: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The functions of app `appId` (UUID): 404 when the app is not visible
 * to the caller, 403 without `functions:read` on its site.
 */
export async function listFunctions(ctx: RequestContext, appId: string, query: Query) {
  await requireApp(ctx, appId, 'functions:read');
  const page = parsePage(query);
  const items: FunctionView[] = [];
  return { page, count: items.length, items };
}
