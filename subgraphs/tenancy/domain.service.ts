// Domains of a site (seed 1; DECISIONS §4): a host name belongs to one site, a site has one
// primary domain, switched in one transaction. Every change forgets the affected hosts in the
// tenant cache, so requests on them see the change at once.
import type { RequestContext } from '../core/context.js';
import { errors, type FieldErrors } from '../core/errors.js';
import { pageRequest, type ListInput, type ListResult } from '../core/listing.js';
import { slugify, slugOrUuid, withUniqueSlug } from '../core/slug.js';
import { isUniqueViolation } from '../core/db.js';
import { audit } from './audit-log.js';
import { domainRepository } from './domain.repository.js';
import { siteRepository, type DomainRow, type SiteRow } from './site.repository.js';
import { bodyObject, getSite, mayAdminister, type Domain } from './site.service.js';

export type { Domain };

const isUnderBaseDomain = (host: string, base: string) => host === base || host.endsWith(`.${base}`);

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A host name, lower-cased (no port, no scheme); field errors otherwise. Host names under
 * SITE_BASE_DOMAIN are the platform's to give (`{site}.{SITE_BASE_DOMAIN}` for each new site):
 * a custom domain there is refused, so no site can squat on a future site's domain. `current`
 * is the domain's own host (an unchanged value is always accepted).
 */
export function parseHost(ctx: RequestContext, value: unknown, errs: FieldErrors, current?: string): string | undefined {
  if (typeof value !== 'string' || !value.trim()) {
    errs.domain = ['A host name is required.'];
    return undefined;
  }
  const host = value.trim().toLowerCase().replace(/\.$/, '');
  const labels = host.split('.');
  const valid = host.length <= 253 && labels.length >= 2 && labels.every((l) => LABEL.test(l)) && /[a-z]/.test(labels[labels.length - 1]);
  if (!valid) errs.domain = [`"${value.slice(0, 100)}" is not a valid host name (such as shop.example.com).`];
  else if (ctx.platform.config.platformHosts.includes(host)) errs.domain = [`"${host}" is a platform host and cannot serve a site.`];
  else if (host !== current && isUnderBaseDomain(host, ctx.platform.config.siteBaseDomain)) {
    errs.domain = [`Host names under "${ctx.platform.config.siteBaseDomain}" are given out by the platform: use a domain of your own.`];
  } else return host;
  return undefined;
}

async function siteForWrite(ctx: RequestContext, siteRef: string): Promise<SiteRow> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  const site = await getSite(ctx, siteRef);
  if (!(await mayAdminister(ctx, 'change_site', site))) throw errors.permissionDenied();
  return site;
}

async function findDomain(ctx: RequestContext, site: SiteRow, ref: string): Promise<DomainRow> {
  const row = await siteRepository.findDomain(ctx.platform.pool, site.id, slugOrUuid(ref));
  if (!row) throw errors.notFound('Domain not found.');
  return row;
}

const hostTaken = (host: string) => errors.conflict(`The host "${host}" already belongs to a site.`, { domain: ['Already in use.'] });

export async function listDomains(ctx: RequestContext, siteRef: string, input: ListInput): Promise<ListResult<Domain>> {
  const site = await getSite(ctx, siteRef);
  const page = pageRequest(input);
  const { rows, count } = await siteRepository.listDomains(ctx.platform.pool, site.id, page);
  return { page, count, items: rows };
}

export async function getDomain(ctx: RequestContext, siteRef: string, ref: string): Promise<Domain> {
  return findDomain(ctx, await getSite(ctx, siteRef), ref);
}

export async function createDomain(ctx: RequestContext, siteRef: string, body: unknown): Promise<Domain> {
  const site = await siteForWrite(ctx, siteRef);
  const b = bodyObject(body);
  const errs: FieldErrors = {};
  const host = parseHost(ctx, b.domain, errs);
  if (b.is_primary !== undefined && typeof b.is_primary !== 'boolean') errs.is_primary = ['Must be a boolean.'];
  if (Object.keys(errs).length) throw errors.invalid('Invalid domain.', errs);
  const base = slugify(host!, 'domain');
  const created = await withUniqueSlug({
    base,
    taken: (s) => siteRepository.takenSlugs(ctx.platform.pool, 'domains', s),
    // A racing insert of the same host fails the check below on the retry: a 409, not a loop.
    isSlugConflict: isUniqueViolation,
    insert: (slug) =>
      ctx.platform.prisma.$transaction(async (tx) => {
        if ((await domainRepository.ownerOf(tx, host!)) !== null) throw hostTaken(host!);
        // The first domain of a site becomes its primary one.
        const primary = b.is_primary === true || !(await domainRepository.hasPrimary(tx, site.id));
        if (primary) await domainRepository.clearPrimary(tx, site.id);
        const d = await domainRepository.create(tx, { slug, domain: host!, siteId: site.id, isPrimary: primary });
        await audit(tx, ctx, {
          action: 'create',
          objectType: 'domain',
          objectId: d.uuid,
          organizationId: site.organizationId,
          siteId: site.id,
          changes: { domain: host, is_primary: primary },
        });
        return d;
      }),
  });
  ctx.platform.invalidation.publish({ kind: 'tenant', host: host! }); // a cached "no site here"
  return findDomain(ctx, site, created.uuid);
}

/** PATCH `{domain, is_primary}`. A primary domain is changed by making another one primary. */
export async function updateDomain(ctx: RequestContext, siteRef: string, ref: string, body: unknown): Promise<Domain> {
  const site = await siteForWrite(ctx, siteRef);
  const current = await findDomain(ctx, site, ref);
  const b = bodyObject(body);
  const errs: FieldErrors = {};
  const host = b.domain === undefined ? undefined : parseHost(ctx, b.domain, errs, current.domain);
  if (b.is_primary !== undefined && typeof b.is_primary !== 'boolean') errs.is_primary = ['Must be a boolean.'];
  else if (b.is_primary === false && current.isPrimary)
    errs.is_primary = ['A site keeps one primary domain: make another domain primary instead.'];
  if (Object.keys(errs).length) throw errors.invalid('Invalid domain.', errs);
  const data = {
    ...(host !== undefined && host !== current.domain && { domain: host }),
    ...(b.is_primary === true && { isPrimary: true }),
  };
  try {
    await ctx.platform.prisma.$transaction(async (tx) => {
      if (data.domain && (await domainRepository.ownerOf(tx, data.domain)) !== null) throw hostTaken(data.domain);
      if (data.isPrimary) await domainRepository.clearPrimary(tx, site.id, current.id);
      await domainRepository.update(tx, current.id, data);
      const changes = { ...(data.domain && { domain: data.domain }), ...(data.isPrimary && { is_primary: true }) };
      await audit(tx, ctx, {
        action: 'update',
        objectType: 'domain',
        objectId: current.uuid,
        organizationId: site.organizationId,
        siteId: site.id,
        changes,
      });
    });
  } catch (e) {
    if (isUniqueViolation(e) && data.domain) throw hostTaken(data.domain); // lost a race for the host
    throw e;
  }
  ctx.platform.invalidation.publish({ kind: 'tenant', host: current.domain });
  if (data.domain) ctx.platform.invalidation.publish({ kind: 'tenant', host: data.domain });
  return findDomain(ctx, site, current.uuid);
}

/** Removes the mapping (the host is free again). The primary goes last. */
/** Removes a domain; answers it as it was before. */
export async function deleteDomain(ctx: RequestContext, siteRef: string, ref: string): Promise<Domain> {
  const site = await siteForWrite(ctx, siteRef);
  const d = await findDomain(ctx, site, ref);
  await ctx.platform.prisma.$transaction(async (tx) => {
    if (d.isPrimary && (await domainRepository.countOthers(tx, site.id, d.id)) > 0) {
      throw errors.invalid('The primary domain cannot be removed while the site has other domains: make another one primary first.', {
        domain: ['This is the primary domain.'],
      });
    }
    await domainRepository.remove(tx, d.id);
    await audit(tx, ctx, {
      action: 'delete',
      objectType: 'domain',
      objectId: d.uuid,
      organizationId: site.organizationId,
      siteId: site.id,
      changes: { domain: d.domain },
    });
  });
  ctx.platform.invalidation.publish({ kind: 'tenant', host: d.domain });
  return d;
}
