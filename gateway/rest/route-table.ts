// The REST route table: every module's routes (subgraphs/modules.ts), in one list.
import type { RestErrorRenderer, RouteSpec } from '../../subgraphs/core/rest.js';
import { MODULES } from '../../subgraphs/modules.js';

export const ROUTES: RouteSpec[] = MODULES.flatMap((m) => m.routes);

const RENDERERS = new Map<string, RestErrorRenderer>(MODULES.filter((m) => m.restErrors).map((m) => [m.name, m.restErrors!]));

/** The error envelope of the module that owns a route (undefined: the console envelope). */
export const moduleErrorRenderer = (spec: RouteSpec | undefined): RestErrorRenderer | undefined =>
  spec ? RENDERERS.get(spec.module) : undefined;
