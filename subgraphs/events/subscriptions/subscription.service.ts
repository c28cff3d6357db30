// Subscriptions (seed 3 "Events"): the event list, subscribe/unsubscribe of a function of this
// site, and an app's subscribers of one event. Listing names needs sign-in only; the rest
// needs `functions:write` on the site (organization owners and admins hold it).
import type { RequestContext } from '../../core/context.js';
import { isUniqueViolation } from '../../core/db.js';
import { errors } from '../../core/errors.js';
import { can, resolveApp } from '../../tenancy/tenancy.api.js';
import { compileFilter } from '../delivery/cel-filter.js';
import { EVENT_NAMES, isEventName, type EventName } from '../event-names.js';
import { eventsErrors } from '../events-errors.js';
import { functionRepository } from '../functions/function.repository.js';
import { subscriptionRepository as repo, type SubscriptionRow } from './subscription.repository.js';

export function listEventNames(ctx: RequestContext): readonly EventName[] {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  return EVENT_NAMES;
}

async function siteForWrite(ctx: RequestContext) {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (!ctx.site) throw errors.tenantRequired();
  if (!(await can(ctx, 'functions:write', 'site', ctx.site.id))) throw errors.permissionDenied();
  return ctx.site;
}

function requireEvent(name: string): EventName {
  if (!isEventName(name)) throw eventsErrors.unknownEvent(name);
  return name;
}

export interface SubscribeInput {
  functionId: unknown;
  /** Optional: replaces the function's filter (it belongs to the function). */
  filterConditions?: unknown;
}

export function parseSubscribeBody(body: unknown): SubscribeInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.invalid('The request body must be a JSON object.');
  const b = body as Record<string, unknown>;
  return { functionId: b.function_id, filterConditions: b.filter_conditions };
}

function functionId(v: unknown): number {
  const n = typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 2_147_483_647)
    throw errors.invalid('function_id must be a positive integer.', { function_id: ['A valid integer is required.'] });
  return n;
}

/** The function of this site (and of the API key's app) by id, or 400 "does not exist". */
async function siteFunction(ctx: RequestContext, siteId: number, raw: unknown) {
  const id = functionId(raw);
  const fn = await functionRepository.findById(ctx.platform.pool, siteId, id);
  if (!fn || (ctx.principal.kind === 'api_key' && fn.app_id !== ctx.principal.appId)) throw eventsErrors.functionMissing(id);
  return fn;
}

export async function subscribe(ctx: RequestContext, eventName: string, input: SubscribeInput): Promise<SubscriptionRow> {
  const event = requireEvent(eventName);
  const site = await siteForWrite(ctx);
  const fn = await siteFunction(ctx, site.id, input.functionId);
  if (input.filterConditions !== undefined) {
    const f = input.filterConditions;
    if (f !== null && typeof f !== 'string')
      throw errors.invalid('filter_conditions must be a string.', { filter_conditions: ['Must be a string.'] });
    const expr = f && f.trim() ? f : null;
    if (expr && expr.length > 2000)
      throw errors.invalid('filter_conditions is too long.', { filter_conditions: ['Use at most 2000 characters.'] });
    const problem = expr ? compileFilter(expr).error : null;
    if (problem) throw errors.invalid(`Invalid CEL expression: ${problem}`, { filter_conditions: [`Invalid CEL expression: ${problem}`] });
    await ctx.platform.pool.query(`UPDATE event_functions SET filter_conditions = $3, updated_at = now() WHERE site_id = $1 AND id = $2`, [
      site.id,
      fn.id,
      expr,
    ]);
  }
  let id: number;
  try {
    id = await repo.insert(ctx.platform.pool, site.id, event, fn.id);
  } catch (e) {
    if (isUniqueViolation(e)) throw eventsErrors.alreadySubscribed(fn.name, event);
    throw e;
  }
  return (await repo.find(ctx.platform.pool, site.id, id))!;
}

/** Removes a subscription; answers it as it was. */
export async function unsubscribe(ctx: RequestContext, eventName: string, input: SubscribeInput): Promise<SubscriptionRow> {
  const event = requireEvent(eventName);
  const site = await siteForWrite(ctx);
  const fn = await siteFunction(ctx, site.id, input.functionId);
  const [sub] = (await repo.ofApp(ctx.platform.pool, site.id, fn.app_id, event)).filter((s) => s.function_id === fn.id);
  if (!sub || !(await repo.remove(ctx.platform.pool, site.id, event, fn.id))) throw eventsErrors.notSubscribed(fn.name, event);
  return sub;
}

export async function appEventSubscribers(ctx: RequestContext, appRef: string, eventName: string) {
  const app = await resolveApp(ctx, appRef);
  if (!(await can(ctx, 'functions:write', 'site', app.siteId))) throw errors.permissionDenied();
  const event = requireEvent(eventName);
  const rows = await repo.ofApp(ctx.platform.pool, app.siteId, app.id, event);
  return { event, app: { id: app.id, name: app.name, slug: app.slug }, total_subscribers: rows.length, subscribers: rows };
}

export const toSubscriptionView = (s: SubscriptionRow) => ({
  id: s.id,
  event: s.event,
  function: s.function_id,
  function_name: s.function_name,
  function_slug: s.function_slug,
  app_name: s.app_name,
  app_slug: s.app_slug,
  created_at: s.created_at.toISOString(),
  updated_at: s.updated_at.toISOString(),
});

export const toSubscriberView = (s: SubscriptionRow) => ({
  subscriber_id: s.id,
  event: s.event,
  function_id: s.function_id,
  function_name: s.function_name,
  function_slug: s.function_slug,
  filter_conditions: s.filter_conditions,
  app_id: s.app_id,
  app_name: s.app_name,
  app_slug: s.app_slug,
  created_at: s.created_at.toISOString(),
});
