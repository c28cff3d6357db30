// Secret lists (REST `GET /api/secrets/`, GraphQL `Site.secrets`) and a key's history, over
// typed inputs; each transport renders its own view (secrets.routes.ts, secrets.resolvers.ts).
import type { RequestContext } from '../core/context.js';
import { orderBy, pageRequest, searchTerm, type ListInput, type ListResult } from '../core/listing.js';
import { requireSite } from '../tenancy/tenancy.api.js';
import { historyPage, type HistoryWindow, type HistoryList } from './history.service.js';
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

/** A list of one tier's secrets: the site tier, or with `app` that app's tier. */
export interface TierSecretsInput extends ListInput {
  /** App slug or UUID: that app's tier instead of the site tier. */
  app?: string;
  /** Exact key. */
  key?: string;
  /** Secrets carrying any of these tags (slugs). */
  tags?: string[];
  /** Secret type slug. */
  secretType?: string;
  /** Username of the creator. */
  createdBy?: string;
}

const text = (v: string | undefined) => v?.trim() || undefined;

function filters(input: TierSecretsInput): Omit<ListFilter, 'siteId' | 'appId' | 'limit' | 'offset'> {
  const order = orderBy(input.ordering, ORDERING, '-created_at');
  const tags = input.tags?.map((s) => s.trim()).filter(Boolean);
  return {
    search: searchTerm(input.search),
    key: text(input.key),
    tagSlugs: tags?.length ? tags : undefined,
    typeSlug: text(input.secretType),
    createdBy: text(input.createdBy),
    orderSql: order.map((o) => `${o.column} ${o.desc ? 'DESC' : 'ASC'}${o.desc ? ' NULLS LAST' : ' NULLS FIRST'}`).join(', '),
  };
}

/**
 * One tier per list, like retrieval — the site tier, or with `app` that app's tier (items
 * carry no tier field, so mixing tiers would make keys ambiguous). Values included.
 */
export async function listTierSecrets(ctx: RequestContext, input: TierSecretsInput): Promise<ListResult<SecretView>> {
  const site = await requireRead(ctx);
  const tier = await tierOf(ctx, input.app);
  const page = pageRequest(input);
  const { rows, count } = await secretRepository.list(ctx.platform.pool, {
    siteId: site.id,
    appId: tier.appId,
    ...filters(input),
    limit: page.pageSize,
    offset: page.offset,
  });
  const items = await Promise.all(rows.map((r) => toSecretView(ctx, r)));
  return { page, count, items };
}

export interface SecretSummary {
  key: string;
  secretType: string;
  tags: string[];
  /** Slug of the app for an app-tier secret; null at site tier. */
  app: string | null;
}

/**
 * Secrets of site `siteId` (UUID), both tiers: 404 when the site is not visible to the caller,
 * 403 without `secrets:read`. Never values (docs/secrets.md).
 */
export async function listSecrets(ctx: RequestContext, siteId: string, input: ListInput): Promise<ListResult<SecretSummary>> {
  const site = await requireSite(ctx, siteId, 'secrets:read');
  const page = pageRequest(input);
  const { rows, count } = await secretRepository.list(ctx.platform.pool, {
    siteId: site.id,
    search: searchTerm(input.search),
    orderSql: 's.key ASC, s.app_id ASC NULLS FIRST',
    limit: page.pageSize,
    offset: page.offset,
  });
  const items = rows.map((r) => ({ key: r.key, secretType: r.typeName, tags: r.tagNames, app: r.appSlug }));
  return { page, count, items };
}

/** The tier's history records of `key`, also after the secret was deleted. */
export async function secretHistory(ctx: RequestContext, key: string, input: HistoryWindow): Promise<HistoryList> {
  const site = await requireRead(ctx);
  const tier = await tierOf(ctx, input.app);
  const page = await historyPage(ctx, site.id, tier, key, input);
  // A key that never existed in this tier is "not found", like retrieval.
  if (page.total === 0) throw secretNotFound(key);
  return page;
}
