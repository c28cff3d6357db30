// The REST route table: every module's routes, in one list.
import { authRoutes } from '../auth/auth.routes.js';
import { organizationsRoutes } from '../../subgraphs/tenancy/organizations.routes.js';
import { sitesRoutes } from '../../subgraphs/tenancy/sites.routes.js';
import { usersRoutes } from '../../subgraphs/tenancy/users.routes.js';
import { secretTypesAndTagsRoutes } from '../../subgraphs/secrets/tags.routes.js';
import { secretsRoutes } from '../../subgraphs/secrets/secrets.routes.js';
import { datatableRoutes } from '../../subgraphs/data/tables.routes.js';
import { recordReadRoutes } from '../../subgraphs/data/records-read.routes.js';
import { recordWriteRoutes } from '../../subgraphs/data/records-write.routes.js';
import type { RouteSpec } from './types.js';

export const ROUTES: RouteSpec[] = [
  ...organizationsRoutes,
  ...sitesRoutes,
  ...usersRoutes,
  ...authRoutes,
  ...secretTypesAndTagsRoutes,
  ...secretsRoutes,
  ...datatableRoutes,
  ...recordReadRoutes,
  ...recordWriteRoutes,
];
