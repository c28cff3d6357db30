// REST routes of events and subscriptions (seed 3 "Endpoints: Events"). Adapters only; the
// envelope is the seed's `{status: "success", message, data}`.
import { RestResult, type RouteSpec } from '../core/rest.js';
import { toAppEventSubscribersRest, toSubscriptionRest } from './events-views.js';
import { appEventSubscribers, listEventNames, parseSubscribeBody, subscribe, unsubscribe } from './subscriptions/subscription.service.js';

const ok = (message: string, data: unknown) => ({ status: 'success', message, data });

function route(spec: Omit<RouteSpec, 'auth' | 'module'>): RouteSpec {
  return { auth: 'required', module: 'events', ...spec };
}

export const eventRoutes: RouteSpec[] = [
  route({
    method: 'GET',
    path: '/cloud/events/',
    scope: 'console',
    permission: null,
    summary: 'The seven event names',
    handler: async (ctx) => ok('Events retrieved.', { events: listEventNames(ctx) }),
  }),
  route({
    method: 'POST',
    path: '/cloud/events/:event/subscribe/',
    scope: 'site',
    permission: 'functions:write',
    summary: 'Subscribe a function of this site to an event {function_id, filter_conditions?}',
    status: 201,
    handler: async (ctx, i) => {
      const s = await subscribe(ctx, i.params.event, parseSubscribeBody(i.body));
      return ok(`Function "${s.functionName}" subscribed to ${s.event}.`, toSubscriptionRest(s));
    },
  }),
  route({
    method: 'POST',
    path: '/cloud/events/:event/unsubscribe/',
    scope: 'site',
    permission: 'functions:write',
    status: 200,
    summary: 'Unsubscribe a function from an event {function_id}',
    handler: async (ctx, i) => {
      await unsubscribe(ctx, i.params.event, parseSubscribeBody(i.body));
      return ok('Function unsubscribed.', {});
    },
  }),
  route({
    method: 'GET',
    path: '/apps/:app/events/:event/',
    scope: 'site',
    permission: 'functions:write',
    summary: "An app's subscribers of one event",
    handler: async (ctx, i) => {
      const r = await appEventSubscribers(ctx, i.params.app, i.params.event);
      return new RestResult(200, ok('Event subscribers retrieved.', toAppEventSubscribersRest(r)));
    },
  }),
];
