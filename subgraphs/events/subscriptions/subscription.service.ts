// Subscriptions (seed 3 "Events"): the event list, subscribe/unsubscribe of a function of this
// site, and an app's subscribers of one event. Listing names needs sign-in only; the rest
// needs `functions:write` on the site (organization owners and admins hold it).
import type { RequestContext } from '../../core/context.js';
import { isUniqueViolation, withTransaction } from '../../core/db.js';
import { errors } from '../../core/errors.js';
import { can } from '../../tenancy/tenancy.api.js';
import { compileFilter } from '../delivery/cel-filter.js';
import { EVENT_NAMES, isEventName, type EventName } from '../event-names.js';
import { eventsErrors } from '../events-errors.js';
import { functionRepository } from '../functions/function.repository.js';
import { appFor } from '../functions/function.service.js';
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

export async function subscribe(ctx: RequestContext, eventName: string, input: SubscribeInput): Promise<Subscription> {
  const event = requireEvent(eventName);
  const site = await siteForWrite(ctx);
  const fn = await siteFunction(ctx, site.id, input.functionId);
  let filter: string | null | undefined;
  if (input.filterConditions !== undefined) {
    const f = input.filterConditions;
    if (f !== null && typeof f !== 'string')
      throw errors.invalid('filter_conditions must be a string.', { filter_conditions: ['Must be a string.'] });
    const expr = f && f.trim() ? f : null;
    if (expr && expr.length > 2000)
      throw errors.invalid('filter_conditions is too long.', { filter_conditions: ['Use at most 2000 characters.'] });
    const problem = expr ? compileFilter(expr).error : null;
    if (problem) throw errors.invalid(`Invalid CEL expression: ${problem}`, { filter_conditions: [`Invalid CEL expression: ${problem}`] });
    filter = expr;
  }
  // One transaction: a refused subscription (already subscribed) leaves the filter as it was.
  const id = await withTransaction(ctx.platform.pool, async (client) => {
    let inserted: number;
    try {
      inserted = await repo.insert(client, site.id, event, fn.id);
    } catch (e) {
      if (isUniqueViolation(e)) throw eventsErrors.alreadySubscribed(fn.name, event);
      throw e;
    }
    if (filter !== undefined)
      await client.query(`UPDATE event_functions SET filter_conditions = $3, updated_at = now() WHERE site_id = $1 AND id = $2`, [
        site.id,
        fn.id,
        filter,
      ]);
    return inserted;
  });
  return toSubscription((await repo.find(ctx.platform.pool, site.id, id))!);
}

/** Removes a subscription; answers it as it was. */
export async function unsubscribe(ctx: RequestContext, eventName: string, input: SubscribeInput): Promise<Subscription> {
  const event = requireEvent(eventName);
  const site = await siteForWrite(ctx);
  const fn = await siteFunction(ctx, site.id, input.functionId);
  const [sub] = (await repo.ofApp(ctx.platform.pool, site.id, fn.app_id, event)).filter((s) => s.function_id === fn.id);
  if (!sub || !(await repo.remove(ctx.platform.pool, site.id, event, fn.id))) throw eventsErrors.notSubscribed(fn.name, event);
  return toSubscription(sub);
}

/** A function's subscription to an event, as the services answer it. */
export interface Subscription {
  id: number;
  event: string;
  functionId: number;
  functionName: string;
  functionSlug: string;
  /** The function's CEL filter (it belongs to the function). */
  filterConditions: string | null;
  appId: number;
  appName: string;
  appSlug: string;
  createdAt: Date;
  updatedAt: Date;
}

export const toSubscription = (s: SubscriptionRow): Subscription => ({
  id: s.id,
  event: s.event,
  functionId: s.function_id,
  functionName: s.function_name,
  functionSlug: s.function_slug,
  filterConditions: s.filter_conditions,
  appId: s.app_id,
  appName: s.app_name,
  appSlug: s.app_slug,
  createdAt: s.created_at,
  updatedAt: s.updated_at,
});

/** An app's subscriptions to one event. */
export interface AppEventSubscribers {
  event: EventName;
  app: { id: number; uuid: string; name: string; slug: string };
  subscribers: Subscription[];
}

/** An app's subscribers of one event (functions:write on the app's site, as the seed's route). */
export async function appEventSubscribers(ctx: RequestContext, appRef: string, eventName: string): Promise<AppEventSubscribers> {
  const app = await appFor(ctx, appRef, 'functions:write');
  const event = requireEvent(eventName);
  const rows = await repo.ofApp(ctx.platform.pool, app.siteId, app.id, event);
  return { event, app: { id: app.id, uuid: app.uuid, name: app.name, slug: app.slug }, subscribers: rows.map(toSubscription) };
}
