// The permission matrix (test/e2e/permission-matrix.test.ts): what a module's fixture gives
// for each of its routes and GraphQL fields that declare a permission. One fixture file per
// module under test/support/matrix/, listed once in index.ts.
import type { CallResult, TestApp } from '../app.js';
import type { User } from '../../../subgraphs/tenancy/user.repository.js';

export interface Ref {
  id: number;
  uuid: string;
  slug: string;
}

/** The small world every probe starts from: one organization, its site and an app of it. */
export interface MatrixWorld {
  t: TestApp;
  owner: User;
  ownerToken: string;
  org: Ref;
  site: Ref & { host: string };
  app: Ref;
  /** The owner calls the API (site host by default; `host: 'localhost'` for console routes). */
  asOwner(method: string, url: string, body?: unknown, host?: string): Promise<CallResult>;
  /** A name never used before in this world (slugs, keys, hosts). */
  unique(prefix: string): string;
  /** Module fixtures keep what their setup created here (table names, secret keys …). */
  state: Record<string, unknown>;
}

/**
 * One request of the matrix. Both callers send exactly this request: the one holding every
 * permission but P must be refused, the one holding P must get past the access check.
 */
export interface Probe {
  /** Host to call: the world's site host (site-scope routes) or a platform host. */
  host: string;
  /** Path and query string, with every parameter filled in. */
  url: string;
  body?: unknown;
  /** The organization whose membership carries the callers' permissions (default: the world's). */
  orgId?: number;
  /** Permissions the allowed caller needs besides P (view_site to see the site it acts on). */
  needs?: string[];
  /**
   * Permissions that imply P in this service besides `platform.permissions.granting(P)`
   * (site administration also accepts manage_organization): the refused caller lacks them too.
   */
  impliedBy?: string[];
  /** What the refused caller gets: 403, or 404 where the service hides the object's existence. */
  denied?: 403 | 404;
  /** Request headers besides host and authorization (an upload's content type, raw or multipart). */
  headers?: Record<string, string>;
  /**
   * For a route that answers item by item instead of refusing the request (a list that leaves out
   * what the caller may not see, a batch that reports each refused item): true when the answer
   * shows the refusal. The refused caller's answer must satisfy it; the allowed caller's must be
   * 2xx and must not.
   */
  deniedBy?: (res: CallResult) => boolean;
  /**
   * What another tenant's owner gets for this request in the isolation probes
   * (test/support/matrix/isolation.ts): 404 by default; 400 where the seed answers an id of a
   * request body that is not the tenant's with "does not exist".
   */
  hidden?: 400 | 404;
}

/** A file sent with a GraphQL operation (a GraphQL multipart request, graphql-multipart-request-spec). */
export interface GraphqlUpload {
  /** The operation's variable that takes the file. */
  variable: string;
  filename: string;
  content: string;
  type: string;
}

export interface GraphqlProbe extends Omit<Probe, 'url' | 'body' | 'headers' | 'deniedBy'> {
  query: string;
  variables?: Record<string, unknown>;
  /** Sent as a multipart request with this file (and `apollo-require-preflight`). */
  upload?: GraphqlUpload;
}

/** The body and headers of a probe's POST /graphql: JSON, or multipart when it carries a file. */
export function graphqlRequest(probe: Pick<GraphqlProbe, 'query' | 'variables' | 'upload'>): {
  body: unknown;
  headers?: Record<string, string>;
} {
  if (!probe.upload) return { body: { query: probe.query, variables: probe.variables } };
  const u = probe.upload;
  const boundary = `----matrix${Math.random().toString(16).slice(2)}`;
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const body =
    field('operations', JSON.stringify({ query: probe.query, variables: { ...probe.variables, [u.variable]: null } })) +
    field('map', JSON.stringify({ 0: [`variables.${u.variable}`] })) +
    `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="${u.filename}"\r\nContent-Type: ${u.type}\r\n\r\n${u.content}\r\n` +
    `--${boundary}--\r\n`;
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'apollo-require-preflight': 'true' } };
}

export type ProbeBuilder<P> = (w: MatrixWorld) => Promise<P>;

export interface ModuleFixture {
  module: string;
  /** Runs once after the world exists (tables, secrets … the probes need). */
  setup?(w: MatrixWorld): Promise<void>;
  /** Keyed `METHOD /path/` as in the route table (path under /api). */
  routes: Record<string, ProbeBuilder<Probe>>;
  /** Keyed `Query.x` / `Mutation.y`. */
  fields: Record<string, ProbeBuilder<GraphqlProbe>>;
}

/** Expect a status, showing the answer when it differs (a matrix failure must say why). */
export function expectStatus(res: CallResult, ok: (status: number) => boolean, what: string): void {
  if (!ok(res.status)) throw new Error(`${what}: got ${res.status} ${res.text.slice(0, 300)}`);
}
