// The events module: platform events, subscriptions and the functions they trigger (seed 3
// "Events", DECISIONS §7; docs/events.md).
import type { RequestContext } from '../core/context.js';
import type { ModuleManifest } from '../core/module.js';
import { kickRelay, startDelivery, stopDelivery } from './delivery/delivery.js';
import { outboxRepository, type Exec } from './delivery/outbox.repository.js';
import { runPreEvent } from './delivery/pre-events.js';
import { renderEventsError } from './events-errors.js';
import { eventsResolvers } from './events.resolvers.js';
import { eventRoutes } from './events.routes.js';
import { functionRoutes } from './functions.routes.js';

export const eventsModule: ModuleManifest = {
  name: 'events',
  resolvers: [eventsResolvers],
  routes: [...eventRoutes, ...functionRoutes],
  restErrors: renderEventsError,
  permissions: [
    { codename: 'functions:read', name: 'Can read functions', resource: 'functions', scope: 'site' },
    { codename: 'functions:write', name: 'Can write functions', resource: 'functions', scope: 'site' },
    { codename: 'functions:execute', name: 'Can execute functions', resource: 'functions', scope: 'site' },
  ],
  fieldPermissions: {
    'App.functions': 'functions:read',
    'Function.invocations': 'functions:read',
    'App.eventSubscribers': 'functions:write',
    'Query.events': null,
    'Query.invocations': 'functions:read',
    'Query.invocation': 'functions:read',
    'Mutation.createFunction': 'functions:write',
    'Mutation.updateFunction': 'functions:write',
    'Mutation.deleteFunction': 'functions:write',
    'Mutation.executeFunction': 'functions:execute',
    'Mutation.subscribeFunction': 'functions:write',
    'Mutation.unsubscribeFunction': 'functions:write',
  },
  register(platform) {
    const hooks = platform.hooks;
    // The outbox: written inside the writer's transaction, relayed after its commit. Requests
    // whose write put rows in the outbox (some function subscribes to them) kick the relay; the
    // others leave it alone (the periodic relay remains the safety net).
    const wroteOutbox = new WeakSet<RequestContext>();
    hooks.on('recordsWritten', async (client, events, ctx) => {
      if (!ctx.site || events.length === 0) return;
      const exec: Exec = async (sql, params) => (await client.query(sql, params)).rows;
      const written = await outboxRepository.write(
        exec,
        ctx.site.id,
        events[0].app_slug,
        events.map((e) => ({ event: e.type, payload: e })),
      );
      if (written > 0) wroteOutbox.add(ctx);
    });
    hooks.on('userWritten', async (tx, event, ctx) => {
      if (!ctx.site) return;
      const exec: Exec = (sql, params) => tx.$queryRawUnsafe(sql, ...params);
      if ((await outboxRepository.write(exec, ctx.site.id, null, [{ event: event.type, payload: event }])) > 0) wroteOutbox.add(ctx);
    });
    const relay = (ctx: RequestContext) =>
      void (wroteOutbox.delete(ctx) && platform.config.events.relayOnCommit && kickRelay(ctx.platform));
    hooks.on('recordsCommitted', (_events, ctx) => relay(ctx));
    hooks.on('userAfterCreate', (_u, ctx) => relay(ctx));
    hooks.on('userAfterUpdate', (_u, _p, ctx) => relay(ctx));
    hooks.on('userAfterDelete', (_u, ctx) => relay(ctx));
    hooks.on('userBeforeCreate', (user, ctx) => runPreEvent(ctx, 'PRE_USER_CREATE', { type: 'PRE_USER_CREATE', user }));
    hooks.on('platformClosing', () => stopDelivery(platform));
    startDelivery(platform);
  },
};
