// The subgraphs of the modules (subgraphs/modules.ts): their SDL files (schema/<name>.graphql
// plus schema/<name>/*.graphql) and resolvers. The gateway builds them in-process,
// `npm run start:subgraph` serves one over HTTP, and `npm run compose` composes their SDL into
// the committed supergraph.
import fs from 'node:fs';
import path from 'node:path';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { ResolverMap } from './core/graphql/resolvers.js';
import { findModule, SUBGRAPH_NAMES } from './modules.js';
import { PROJECT_ROOT } from './core/paths.js';

export const SCHEMA_DIR = path.join(PROJECT_ROOT, 'schema');
export const SUPERGRAPH_FILE = path.join(SCHEMA_DIR, 'supergraph.graphql');

export { SUBGRAPH_NAMES };

export const isSubgraphName = (name: string): boolean => SUBGRAPH_NAMES.includes(name);

/**
 * A subgraph's SDL: schema/<name>.graphql, followed by the files of schema/<name>/ (in name
 * order) where a large subgraph keeps one file per area (`extend type Query { … }`).
 */
export function subgraphSdl(name: string): string {
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
function mergeResolvers(maps: readonly ResolverMap[]): ResolverMap {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const map of maps) {
    for (const [type, fields] of Object.entries(map)) {
      // Scalars are objects too (GraphQLScalarType): keep them whole.
      if (fields && typeof fields === 'object' && fields.constructor === Object) merged[type] = { ...merged[type], ...fields };
      else merged[type] = fields as Record<string, unknown>;
    }
  }
  return merged as ResolverMap;
}

export function subgraphTypeDefs(name: string): DocumentNode {
  return parse(subgraphSdl(name));
}

/** The executable schema of one subgraph (federation's `_entities` and `_service` included). */
export function buildSubgraph(name: string): GraphQLSchema {
  const resolvers = findModule(name)?.resolvers;
  if (!resolvers) throw new Error(`No module named "${name}" has a subgraph.`);
  return buildSubgraphSchema([{ typeDefs: subgraphTypeDefs(name), resolvers: mergeResolvers(resolvers) as never }]);
}

export function readSupergraph(): string {
  return fs.readFileSync(SUPERGRAPH_FILE, 'utf8');
}
