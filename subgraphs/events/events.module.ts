// The events module: platform events, subscriptions and the functions they trigger (seed 3
// "Events", DECISIONS §7).
import type { ModuleManifest } from '../core/module.js';
import { renderEventsError } from './events-errors.js';
import { eventsResolvers } from './events.resolvers.js';

export const eventsModule: ModuleManifest = {
  name: 'events',
  resolvers: [eventsResolvers],
  routes: [],
  restErrors: renderEventsError,
  permissions: [
    { codename: 'functions:read', name: 'Can read functions', resource: 'functions', scope: 'site' },
    { codename: 'functions:write', name: 'Can write functions', resource: 'functions', scope: 'site' },
    { codename: 'functions:execute', name: 'Can execute functions', resource: 'functions', scope: 'site' },
  ],
};
