// What a module is, for the platform: one manifest per module
// (`subgraphs/<name>/<name>.module.ts`), listed once in `subgraphs/modules.ts`. The GraphQL
// registry, the REST route table, the permission catalogue, the seeds and the hooks all loop
// over that list, so adding a module is one folder and one line (docs/architecture.md).
import type { ResolverMap } from './graphql/resolvers.js';
import type { PermissionDef } from './permissions.js';
import type { Platform } from './context.js';
import type { RestErrorRenderer, RouteSpec } from './rest.js';

export interface ModuleManifest {
  /**
   * The module's name, which is also its subgraph's: its SDL is `schema/<name>.graphql` plus
   * `schema/<name>/*.graphql`, and SUBGRAPH_<NAME>_URL serves it remotely.
   */
  name: string;
  /**
   * Resolver maps of the module's subgraph (merged type by type). A module without them has no
   * subgraph (auth: REST routes only).
   */
  resolvers?: ResolverMap[];
  /** The module's REST routes. */
  routes: RouteSpec[];
  /** The module's REST error envelope; the console envelope `{detail, code, status_code}` when absent. */
  restErrors?: RestErrorRenderer;
  /**
   * The permission each GraphQL field of the module's subgraph checks, keyed `Type.field`
   * (`Query.records`, `Mutation.createBucket`, `App.buckets`); null where none beyond sign-in.
   * The permission-matrix test walks these declarations.
   */
  fieldPermissions?: Record<string, string | null>;
  /** Permissions the module adds to the catalogue. */
  permissions?: PermissionDef[];
  /** Start-up seeds, run once after the migrations by the process that seeds (server, CLI, tests). */
  seed?: (platform: Platform) => Promise<void>;
  /** Connects the module to the kernel's hook points and provides its module APIs; once per platform. */
  register?: (platform: Platform) => void;
}
