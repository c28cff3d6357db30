// The REST route table: every module's routes, in one list.
import { tenancyRoutes } from '../../subgraphs/tenancy/tenancy.routes.js';
import type { RouteSpec } from './types.js';

export const ROUTES: RouteSpec[] = [...tenancyRoutes];
