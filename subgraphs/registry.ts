// The six subgraphs: their SDL files (schema/<name>.graphql) and resolvers. The gateway
// builds them in-process, `npm run start:subgraph` serves one over HTTP, and
// `npm run compose` composes their SDL into the committed supergraph.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import { SUBGRAPH_NAMES } from './core/config.js';
import { analyticsResolvers } from './analytics/analytics.resolvers.js';
import { dataResolvers } from './data/data.resolvers.js';
import { eventsResolvers } from './events/events.resolvers.js';
import { secretsResolvers } from './secrets/secrets.resolvers.js';
import { storageResolvers } from './storage/storage.resolvers.js';
import type { SubgraphContext } from './subgraph-context.js';
import { tenancyResolvers } from './tenancy/tenancy.resolvers.js';

export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];
export { SUBGRAPH_NAMES };

export const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../schema');
export const SUPERGRAPH_FILE = path.join(SCHEMA_DIR, 'supergraph.graphql');

const RESOLVERS: Record<SubgraphName, GraphQLResolverMap<SubgraphContext>> = {
  tenancy: tenancyResolvers,
  storage: storageResolvers,
  secrets: secretsResolvers,
  analytics: analyticsResolvers,
  data: dataResolvers,
  events: eventsResolvers,
};

export const isSubgraphName = (name: string): name is SubgraphName => (SUBGRAPH_NAMES as readonly string[]).includes(name);

export function subgraphSdl(name: SubgraphName): string {
  return fs.readFileSync(path.join(SCHEMA_DIR, `${name}.graphql`), 'utf8');
}

export function subgraphTypeDefs(name: SubgraphName): DocumentNode {
  return parse(subgraphSdl(name));
}

/** The executable schema of one subgraph (federation's `_entities` and `_service` included). */
export function buildSubgraph(name: SubgraphName): GraphQLSchema {
  return buildSubgraphSchema([{ typeDefs: subgraphTypeDefs(name), resolvers: RESOLVERS[name] }]);
}

export function readSupergraph(): string {
  return fs.readFileSync(SUPERGRAPH_FILE, 'utf8');
}
