// REST routes owned by the tenancy module (seed document 1).
import type { RouteSpec } from '../../gateway/rest/types.js';
import { toPage } from '../core/listing.js';
import { getOrganization, listOrganizations } from './organization.service.js';
import { getSiteConfig } from './site.service.js';
import { getMe } from './user.service.js';

export const tenancyRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/users/me/',
    scope: 'console',
    auth: 'required',
    module: 'tenancy',
    summary: 'The signed-in user',
    handler: (ctx) => getMe(ctx),
  },
  {
    method: 'GET',
    path: '/organizations/',
    scope: 'console',
    auth: 'required',
    module: 'tenancy',
    summary: 'List organizations the caller can view',
    handler: async (ctx, input) => {
      const { page, count, items } = await listOrganizations(ctx, input.query);
      return toPage(ctx.baseUrl + input.url, page, count, items);
    },
  },
  {
    method: 'GET',
    path: '/organizations/:org/',
    scope: 'console',
    auth: 'required',
    module: 'tenancy',
    summary: 'One organization by slug or UUID',
    handler: (ctx, input) => getOrganization(ctx, input.params.org),
  },

  {
    method: 'GET',
    path: '/sites/config/',
    scope: 'site',
    auth: 'required',
    module: 'tenancy',
    summary: 'Configuration of the site served at this host',
    handler: (ctx) => getSiteConfig(ctx),
  },
];
