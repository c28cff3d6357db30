// REST routes owned by the tenancy module (seed document 1).
import type { RouteSpec } from '../../gateway/rest/types.js';
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
    path: '/sites/config/',
    scope: 'site',
    auth: 'required',
    module: 'tenancy',
    summary: 'Configuration of the site served at this host',
    handler: (ctx) => getSiteConfig(ctx),
  },
];
