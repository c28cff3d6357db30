// Tenant detection from the Host header (DECISIONS §2).
import type { FastifyRequest } from 'fastify';
import type { Config } from '../subgraphs/core/config.js';
import type { SiteRef } from '../subgraphs/core/context.js';
import { errors } from '../subgraphs/core/errors.js';
import type { Platform } from '../subgraphs/core/platform.js';

/** The request's host name, lower-case, without port; X-Forwarded-Host behind a trusted proxy. */
export function requestHost(request: FastifyRequest, config: Readonly<Config>): string {
  const forwarded = config.trustProxy ? request.headers['x-forwarded-host'] : undefined;
  const raw = (typeof forwarded === 'string' && forwarded ? forwarded.split(',')[0] : request.headers.host) ?? '';
  return stripPort(raw.trim().toLowerCase());
}

export function stripPort(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon > -1 && /^\d+$/.test(host.slice(colon + 1)) ? host.slice(0, colon) : host;
}

/** null on a platform host; the site for a known domain; tenant_not_found otherwise. */
export async function resolveTenant(platform: Platform, host: string): Promise<SiteRef | null> {
  if (platform.config.platformHosts.includes(host)) return null;
  const site = await platform.tenants.resolve(host);
  if (!site) throw errors.tenantNotFound(host);
  return site;
}
