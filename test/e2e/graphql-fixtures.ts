// Shared set-up of the GraphQL end-to-end tests: the platform in one of its two modes, and a
// small world of two tenants inserted with SQL.
import { freePort } from '../../subgraphs/core/embedded-postgres.js';
import { SUBGRAPH_NAMES } from '../../subgraphs/registry.js';
import { startSubgraphServer, type SubgraphServer } from '../../subgraphs/serve.js';
import type { User } from '../../subgraphs/tenancy/user.repository.js';
import { startTestApp, type CallResult, type TestApp } from '../support/app.js';
import { insertApp, insertOrg, insertSite } from '../support/tenants.js';

export type Mode = 'in-process' | 'distributed';

export interface GraphqlWorld {
  t: TestApp;
  servers: SubgraphServer[];
  owner: User;
  outsider: User;
  shopAppUuid: string;
  acmeUuid: string;
  /** POST /graphql as a client would. */
  gql(query: string, opts?: { token?: string; host?: string; variables?: Record<string, unknown> }): Promise<CallResult>;
  close(): Promise<void>;
}

/**
 * In-process: the gateway runs every subgraph itself. Distributed: every subgraph is served
 * over HTTP by serve.ts on a port of its own, and the gateway's configuration names them.
 */
export async function startPlatformIn(
  mode: Mode,
  extraEnv: Record<string, string> = {},
): Promise<{ t: TestApp; servers: SubgraphServer[]; close(): Promise<void> }> {
  const ports = mode === 'distributed' ? await Promise.all(SUBGRAPH_NAMES.map(() => freePort())) : [];
  const env: Record<string, string> = { ...extraEnv };
  SUBGRAPH_NAMES.forEach((name, i) => {
    if (ports[i]) env[`SUBGRAPH_${name.toUpperCase()}_URL`] = `http://127.0.0.1:${ports[i]}/graphql`;
  });
  const t = await startTestApp(env);
  // The gateway only contacts a subgraph when a query needs it, so they can start after it.
  const servers = await Promise.all(ports.map((port, i) => startSubgraphServer(t.platform, SUBGRAPH_NAMES[i], { port })));
  return {
    t,
    servers,
    async close() {
      await Promise.all(servers.map((s) => s.close()));
      await t.close();
    },
  };
}

export async function startGraphqlWorld(mode: Mode): Promise<GraphqlWorld> {
  const { t, servers } = await startPlatformIn(mode);
  const owner = await t.createUser();
  const outsider = await t.createUser();
  const acme = await insertOrg(t.platform, 'acme', owner.id);
  const shop = (await insertSite(t.platform, acme.id, 'shop-site', 'shop.localhost')).id;
  const app = await insertApp(t.platform, shop, 'shop');
  // The outsider owns the other tenant; the owner has no access to it.
  const other = await insertOrg(t.platform, 'other', outsider.id);
  const otherSite = (await insertSite(t.platform, other.id, 'other-site', 'other.localhost')).id;
  await insertApp(t.platform, otherSite, 'hidden');

  return {
    t,
    servers,
    owner,
    outsider,
    shopAppUuid: app.uuid,
    acmeUuid: acme.uuid,
    gql: (query, opts = {}) =>
      t.call('POST', '/graphql', { body: { query, variables: opts.variables }, token: opts.token, host: opts.host }),
    async close() {
      await Promise.all(servers.map((s) => s.close()));
      await t.close();
    },
  };
}
