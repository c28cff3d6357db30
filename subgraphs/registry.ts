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
import { recordReadResolvers } from './data/records-read.resolvers.js';
import { recordWriteResolvers } from './data/records-write.resolvers.js';
import { eventsResolvers } from './events/events.resolvers.js';
import { secretsResolvers } from './secrets/secrets.resolvers.js';
import { storageResolvers } from './storage/storage.resolvers.js';
import type { SubgraphContext } from './subgraph-context.js';
import { organizationAdminResolvers } from './tenancy/graphql/organizations.resolvers.js';
import { siteAdminResolvers } from './tenancy/graphql/sites.resolvers.js';
import { userAdminResolvers } from './tenancy/graphql/users.resolvers.js';
import { tenancyResolvers } from './tenancy/tenancy.resolvers.js';

export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];
export { SUBGRAPH_NAMES };

export const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../schema');
export const SUPERGRAPH_FILE = path.join(SCHEMA_DIR, 'supergraph.graphql');

const RESOLVERS: Record<SubgraphName, GraphQLResolverMap<SubgraphContext> | GraphQLResolverMap<SubgraphContext>[]> = {
  tenancy: [tenancyResolvers, organizationAdminResolvers, siteAdminResolvers, userAdminResolvers],
  storage: storageResolvers,
  secrets: secretsResolvers,
  analytics: analyticsResolvers,
  data: [dataResolvers, recordReadResolvers, recordWriteResolvers],
  events: eventsResolvers,
};

export const isSubgraphName = (name: string): name is SubgraphName => (SUBGRAPH_NAMES as readonly string[]).includes(name);

/**
 * A subgraph's SDL: schema/<name>.graphql, followed by the files of schema/<name>/ (in name
 * order) where a large subgraph keeps one file per area (`extend type Query { … }`).
 */
export function subgraphSdl(name: SubgraphName): string {
  const parts = [fs.readFileSync(path.join(SCHEMA_DIR, `${name}.graphql`), 'utf8')];
  const dir = path.join(SCHEMA_DIR, name);
  if (fs.existsSync(dir)) {
    for (const file of fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.graphql'))
      .sort()) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      if (text.replace(/#.*$/gm, '').trim()) parts.push(text);
    }
  }
  return parts.join('\n');
}

/** Several resolver maps of one subgraph merged type by type. */
function mergeResolvers(
  maps: GraphQLResolverMap<SubgraphContext> | GraphQLResolverMap<SubgraphContext>[],
): GraphQLResolverMap<SubgraphContext> {
  if (!Array.isArray(maps)) return maps;
  const merged: Record<string, Record<string, unknown>> = {};
  for (const map of maps) {
    for (const [type, fields] of Object.entries(map)) {
      // Scalars are objects too (GraphQLScalarType): keep them whole.
      if (fields && typeof fields === 'object' && fields.constructor === Object) merged[type] = { ...merged[type], ...fields };
      else merged[type] = fields as Record<string, unknown>;
    }
  }
  return merged as GraphQLResolverMap<SubgraphContext>;
}

export function subgraphTypeDefs(name: SubgraphName): DocumentNode {
  return parse(subgraphSdl(name));
}

/** The executable schema of one subgraph (federation's `_entities` and `_service` included). */
export function buildSubgraph(name: SubgraphName): GraphQLSchema {
  return buildSubgraphSchema([{ typeDefs: subgraphTypeDefs(name), resolvers: mergeResolvers(RESOLVERS[name]) }]);
}

export function readSupergraph(): string {
  return fs.readFileSync(SUPERGRAPH_FILE, 'utf8');
}
