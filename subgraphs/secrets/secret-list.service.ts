// Secret lists (REST `GET /api/secrets/`, GraphQL `Site.secrets`) and a key's history.
import type { RequestContext } from '../core/context.js';
import { param, parseOrdering, parsePage, parseSearch, toPage, type Query } from '../core/listing.js';
import { requireSite } from '../tenancy/tenancy.api.js';
import { historyPage, type HistoryPage } from './history.service.js';
import { requireRead, secretNotFound, tierOf } from './secret-access.js';
import { secretRepository, type ListFilter } from './secret.repository.js';
import { toSecretView, type SecretView } from './secret.service.js';

const ORDERING = {
  created_at: 's.created_at',
  key: 's.key',
  modified_at: 's.modified_at',
  type__name: 't.name',
  created_by__username: 'u.username',
};

function filters(query: Query): Omit<ListFilter, 'siteId' | 'appId' | 'limit' | 'offset'> {
  const text = (name: string) => param(query, name)?.trim() || undefined;
  const order = parseOrdering(query, ORDERING, '-created_at');
  return {
    search: parseSearch(query),
    key: text('key'),
    tagSlugs: text('tags')
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    typeSlug: text('secret_type'),
    createdBy: text('created_by'),
    orderSql: order.map((o) => `${o.column} ${o.desc ? 'DESC' : 'ASC'}${o.desc ? ' NULLS LAST' : ' NULLS FIRST'}`).join(', '),
  };
}

/**
 * GET /api/secrets/: one tier per list, like retrieval — the site tier, or with `app` that
 * app's tier (items carry no tier field, so mixing tiers would make keys ambiguous).
 */
export async function listSecretsRest(ctx: RequestContext, query: Query, url: string) {
  const site = await requireRead(ctx);
  const tier = await tierOf(ctx, param(query, 'app'));
  const page = parsePage(query);
  const { rows, count } = await secretRepository.list(ctx.platform.pool, {
    siteId: site.id,
    appId: tier.appId,
    ...filters(query),
    limit: page.pageSize,
    offset: page.offset,
  });
  const items: SecretView[] = await Promise.all(rows.map((r) => toSecretView(ctx, r)));
  const p = toPage(url, page, count, items);
  return { items: p.results, count: p.count, next: p.next, previous: p.previous };
}

export interface SecretSummary {
  key: string;
  secretType: string;
  tags: string[];
  /** Slug of the app for an app-tier secret; null at site tier. */
  app: string | null;
}

/**
 * GraphQL `Site.secrets` of site `siteId` (UUID), both tiers: 404 when the site is not visible
 * to the caller, 403 without `secrets:read`. Never values (docs/secrets.md).
 */
export async function listSecrets(ctx: RequestContext, siteId: string, query: Query) {
  const site = await requireSite(ctx, siteId, 'secrets:read');
  const page = parsePage(query);
  const { rows, count } = await secretRepository.list(ctx.platform.pool, {
    siteId: site.id,
    search: parseSearch(query),
    orderSql: 's.key ASC, s.app_id ASC NULLS FIRST',
    limit: page.pageSize,
    offset: page.offset,
  });
  const items: SecretSummary[] = rows.map((r) => ({ key: r.key, secretType: r.typeName, tags: r.tagNames, app: r.appSlug }));
  return { page, count, items };
}

/** GET /api/secrets/{key}/history/: the tier's records, also after the secret was deleted. */
export async function secretHistory(ctx: RequestContext, key: string, query: Query): Promise<HistoryPage> {
  const site = await requireRead(ctx);
  const tier = await tierOf(ctx, param(query, 'app'));
  const page = await historyPage(ctx, site.id, tier, key, query);
  // A key that never existed in this tier is "not found", like retrieval.
  if (page.total_count === 0) throw secretNotFound(key);
  return page;
}
