// Secrets subgraph resolvers: Site.secrets (keys, types, tags and tiers; never values), and the
// site's secret types and tags (the services of GET /api/secret-types/ and /api/tags/).
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { RequestContext } from '../core/context.js';
import { AppError, errors } from '../core/errors.js';
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { toConnection, type PageArgs } from '../core/graphql/context.js';
import { listSecrets, secretHistory, type SecretSummary } from './secret-list.service.js';
import { HISTORY_MAX_LIMIT, type HistoryEntry } from './history.service.js';
import type { SecretTypeRow } from './secret-type.repository.js';
import { getSecretType, listSecretTypes } from './secret-type.service.js';
import { getTag, listTags, type TagRow } from './tag.service.js';

type SiteParent = { id: string };

/**
 * Types and tags are configuration of the site served at the host (as their REST routes): on
 * any other host the field answers `tenant_required`, like the REST route there.
 */
function onSiteHost(ctx: RequestContext, site: SiteParent): void {
  if (!ctx.site || ctx.site.uuid !== site.id) throw errors.tenantRequired();
}

/** A read by slug as a nullable field: `not_found` answers null, every other refusal stays. */
const orNull = <T>(p: Promise<T>): Promise<T | null> =>
  p.catch((e: unknown) => {
    if (e instanceof AppError && e.code === 'not_found') return null;
    throw e;
  });

const typeOut = (t: SecretTypeRow) => ({
  slug: t.slug,
  name: t.name,
  description: t.description,
  type: t.type,
  sensitivityLevel: t.sensitivity_level,
  schema: t.schema,
  createdAt: t.created_at,
  modifiedAt: t.modified_at,
});

const tagOut = (t: TagRow) => ({
  name: t.name,
  slug: t.slug,
  description: t.description,
  color: t.color,
  createdAt: t.created_at,
  modifiedAt: t.modified_at,
});

const historyOut = (e: HistoryEntry) => ({
  action: e.action,
  user: e.username,
  at: e.at,
  key: e.key,
  app: e.app,
  secretType: e.secretType,
  changes: e.changes,
});

interface HistoryArgs {
  key: string;
  app?: string | null;
  page?: number | null;
  pageSize?: number | null;
}

/** `page`/`pageSize` as the history window's `offset`/`limit` (the service bounds the limit). */
function historyWindow(args: HistoryArgs) {
  const page = args.page ?? 1;
  if (!Number.isInteger(page) || page < 1 || page > 1_000_000) throw errors.field('page', 'A whole number from 1 to 1000000.');
  const limit = args.pageSize ?? 10;
  if (!Number.isInteger(limit) || limit < 1) throw errors.field('pageSize', 'A whole number of at least 1.');
  const pageSize = Math.min(limit, HISTORY_MAX_LIMIT);
  return { app: args.app ?? undefined, limit: pageSize, offset: (page - 1) * pageSize, page };
}

type TypeListArgs = PageArgs & { type?: string | null; sensitivityLevel?: string | null };

export const secretsResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  Site: {
    secrets: (site: SiteParent, args: PageArgs, { ctx }) =>
      listSecrets(ctx, site.id, args).then((r) => toConnection(r, (s: SecretSummary) => s)),
    secretTypes: async (site: SiteParent, args: TypeListArgs, { ctx }) => {
      onSiteHost(ctx, site);
      const input = { ...args, type: args.type ?? undefined, sensitivityLevel: args.sensitivityLevel ?? undefined };
      return toConnection(await listSecretTypes(ctx, input), typeOut);
    },
    secretType: async (site: SiteParent, args: { slug: string }, { ctx }) => {
      onSiteHost(ctx, site);
      return orNull(getSecretType(ctx, args.slug).then(typeOut));
    },
    secretTags: async (site: SiteParent, args: PageArgs, { ctx }) => {
      onSiteHost(ctx, site);
      return toConnection(await listTags(ctx, args), tagOut);
    },
    secretHistory: async (site: SiteParent, args: HistoryArgs, { ctx }) => {
      onSiteHost(ctx, site);
      const w = historyWindow(args);
      const h = await secretHistory(ctx, args.key, w);
      return { items: h.entries.map(historyOut), total: h.total, page: w.page, pageSize: h.limit };
    },
    secretTag: async (site: SiteParent, args: { slug: string }, { ctx }) => {
      onSiteHost(ctx, site);
      return orNull(getTag(ctx, args.slug).then(tagOut));
    },
  },
};
