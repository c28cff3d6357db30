// API keys of an app (DECISIONS §3): created by the site's owners and admins, shown once,
// stored as a hash only. Revoking one stops it at once in this process (auth cache cleared).
import { apiKeyFormat } from './api-key-format.js';
import type { RequestContext } from '../core/context.js';
import { errors, type FieldErrors } from '../core/errors.js';
import { pageRequest, type ListInput, type ListResult } from '../core/listing.js';
import { isUuid } from '../core/slug.js';
import { requireSiteAdmin, resolveApp } from './app.service.js';
import type { AppRow } from './app.repository.js';
import { audit } from './audit-log.js';
import { bodyObject, textField } from './site.service.js';

/** An API key as the services answer it: never the key, only its prefix (REST view: users-views.ts). */
export interface ApiKey {
  id: number;
  uuid: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const SELECT = { id: true, uuid: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

/** The app, for a user who may administer its site; an API key never manages keys (403). */
async function appForKeys(ctx: RequestContext, appRef: string): Promise<{ app: AppRow; organizationId: number }> {
  const app = await resolveApp(ctx, appRef);
  const site = await requireSiteAdmin(ctx);
  return { app, organizationId: site.organizationId };
}

export async function listApiKeys(ctx: RequestContext, appRef: string, input: ListInput): Promise<ListResult<ApiKey>> {
  const { app } = await appForKeys(ctx, appRef);
  const page = pageRequest(input);
  const where = { appId: app.id };
  const [rows, count] = await Promise.all([
    ctx.platform.prisma.apiKey.findMany({
      where,
      select: SELECT,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: page.offset,
      take: page.pageSize,
    }),
    ctx.platform.prisma.apiKey.count({ where }),
  ]);
  return { page, count, items: rows };
}

/** The key itself is in this answer only; what is stored is its SHA-256. */
export async function createApiKey(ctx: RequestContext, appRef: string, body: unknown): Promise<ApiKey & { key: string }> {
  const { app, organizationId } = await appForKeys(ctx, appRef);
  const errs: FieldErrors = {};
  const name = textField(bodyObject(body), 'name', errs, { required: true, max: 100 });
  if (Object.keys(errs).length) throw errors.invalid('Invalid API key.', errs);
  const generated = apiKeyFormat.generate();
  const row = await ctx.platform.prisma.$transaction(async (tx) => {
    const k = await tx.apiKey.create({
      data: {
        appId: app.id,
        name: name!,
        prefix: generated.prefix,
        keyHash: generated.hash,
        createdById: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
      },
      select: SELECT,
    });
    await audit(tx, ctx, {
      action: 'create',
      objectType: 'api_key',
      objectId: k.uuid,
      organizationId,
      siteId: app.siteId,
      changes: { app: app.slug, name, prefix: k.prefix },
    });
    return k;
  });
  return { ...row, key: generated.key };
}

/** Revokes by id or UUID; revoking a revoked key changes nothing. */
/** Revokes a key (again: nothing changes); answers the key as it is now. */
export async function revokeApiKey(ctx: RequestContext, appRef: string, ref: string): Promise<ApiKey> {
  const { app, organizationId } = await appForKeys(ctx, appRef);
  const byId = /^\d{1,9}$/.test(ref) ? { id: Number(ref) } : isUuid(ref) ? { uuid: ref.toLowerCase() } : null;
  const key = byId && (await ctx.platform.prisma.apiKey.findFirst({ where: { appId: app.id, ...byId }, select: SELECT }));
  if (!key) throw errors.notFound('API key not found.');
  if (key.revokedAt) return key;
  const revokedAt = new Date();
  await ctx.platform.prisma.$transaction(async (tx) => {
    await tx.apiKey.update({ where: { id: key.id }, data: { revokedAt } });
    await audit(tx, ctx, {
      action: 'revoke',
      objectType: 'api_key',
      objectId: key.uuid,
      organizationId,
      siteId: app.siteId,
      changes: { app: app.slug, prefix: key.prefix },
    });
  });
  ctx.platform.invalidation.publish({ kind: 'apiKeys' });
  return { ...key, revokedAt };
}
