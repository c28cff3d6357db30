// Secrets subgraph resolvers: Site.secrets (keys, types, tags and tiers; never values), and the
// site's secret types and tags (the services of GET /api/secret-types/ and /api/tags/).
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { RequestContext } from '../core/context.js';
import { AppError, errors } from '../core/errors.js';
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { toConnection, type PageArgs } from '../core/graphql/context.js';
import { listSecrets, type SecretSummary } from './secret-list.service.js';
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
    secretTag: async (site: SiteParent, args: { slug: string }, { ctx }) => {
      onSiteHost(ctx, site);
      return orNull(getTag(ctx, args.slug).then(tagOut));
    },
  },
};
