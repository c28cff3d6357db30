// GraphQL relationship fields of DataRecord (DECISIONS §11): `related(name)` follows a forward
// relationship, `relatedList(name, sort, limit, offset, filter)` a reverse or many-to-many one.
// Both resolve through DataLoaders made per request and keyed by (table, relationship,
// options), so a page of records costs one batched query per relationship and level, as
// populate does on REST. `aggregate` answers as the REST list with `_aggregate`.
import DataLoader from 'dataloader';
import type { RequestContext } from './../core/context.js';
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { dataErrors } from './data-errors.js';
import type { DataRecord } from './model/codec.js';
import type { DataTable } from './model/table-model.js';
import { aggregateRecords } from './query/aggregate.js';
import { parseFilters } from './query/filter.js';
import { toGraphRecord, type GraphRecord } from './query/graph-record.js';
import { appRelationships } from './relations/app-relationships.js';
import { relatedSort } from './relations/populate.js';
import { DEFAULT_RELATED_LIMIT, fetchRelated, keyText, MAX_RELATED_LIMIT, type RelatedOptions } from './relations/related-fetch.js';
import type { Relationship, RelationshipModel } from './relations/relationship-model.js';

interface RequestLoaders {
  models: Map<number, Promise<RelationshipModel>>;
  loaders: Map<string, DataLoader<unknown, DataRecord[], string>>;
}

const perRequest = new WeakMap<RequestContext, RequestLoaders>();

function loadersOf(ctx: RequestContext): RequestLoaders {
  let l = perRequest.get(ctx);
  if (!l) perRequest.set(ctx, (l = { models: new Map(), loaders: new Map() }));
  return l;
}

/** The relationship `name` of the parent's table (the app's model read once per request). */
async function relationshipOf(ctx: RequestContext, parent: GraphRecord, name: string): Promise<Relationship> {
  const table = parent.source;
  if (!table) throw dataErrors.invalidParam('name', 'This record has no relationships here.');
  const l = loadersOf(ctx);
  let model = l.models.get(table.appId);
  if (!model) {
    model = appRelationships(ctx, table);
    l.models.set(table.appId, model);
  }
  const rel = (await model).get(table.name)?.get(name);
  if (!rel) throw dataErrors.invalidParam('name', `Unknown relationship "${name.slice(0, 100)}" of table "${table.name}".`);
  return rel;
}

function loaderFor(ctx: RequestContext, table: DataTable, rel: Relationship, opts: RelatedOptions, optsKey: string) {
  const l = loadersOf(ctx);
  const key = `${table.id}\u0000${rel.name}\u0000${optsKey}`;
  let loader = l.loaders.get(key);
  if (!loader) {
    loader = new DataLoader<unknown, DataRecord[], string>(
      async (keys) => {
        const found = await fetchRelated(ctx, rel, [...keys], opts);
        return keys.map((k) => found.get(keyText(k)!) ?? []);
      },
      { cacheKeyFn: (k) => keyText(k)!, maxBatchSize: 10_000 },
    );
    l.loaders.set(key, loader);
  }
  return loader;
}

interface RelatedListArgs {
  name: string;
  sort?: string[] | null;
  limit?: number | null;
  offset?: number | null;
  filter?: unknown;
}

function listOptions(target: DataTable, args: RelatedListArgs): RelatedOptions {
  const limit = args.limit ?? DEFAULT_RELATED_LIMIT;
  const offset = args.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_RELATED_LIMIT)
    throw dataErrors.invalidParam('limit', `A whole number from 0 to ${MAX_RELATED_LIMIT}.`);
  if (!Number.isInteger(offset) || offset < 0 || offset > 1_000_000_000)
    throw dataErrors.invalidParam('offset', 'A whole number, 0 or more.');
  let filter;
  if (args.filter != null) {
    if (typeof args.filter !== 'object' || Array.isArray(args.filter))
      throw dataErrors.invalidParam('filter', 'Expected a JSON object of filters.');
    filter = parseFilters(target, Object.entries(args.filter as Record<string, unknown>));
  }
  return { sort: relatedSort(target, 'sort', args.sort?.join(','), 'sort', undefined), limit, offset, filter };
}

interface AggregateArgs {
  app: string;
  table: string;
  aggregate: string[];
  groupBy?: string[] | null;
  having?: string[] | null;
  filter?: unknown;
}

export const relationResolvers: ResolverMap = {
  DataRecord: {
    related: async (parent: GraphRecord, args: { name: string }, { ctx }) => {
      const rel = await relationshipOf(ctx, parent, args.name);
      if (rel.kind !== 'forward') throw dataErrors.invalidParam('name', `"${rel.name}" is a list: use relatedList.`);
      const value = parent.data[rel.fromField.name];
      if (value === null || value === undefined) return null;
      const opts: RelatedOptions = { sort: [], limit: 1, offset: 0 };
      const found = await loaderFor(ctx, parent.source!, rel, opts, '').load(value);
      return found[0] ? toGraphRecord(rel.target, found[0]) : null;
    },
    relatedList: async (parent: GraphRecord, args: RelatedListArgs, { ctx }) => {
      const rel = await relationshipOf(ctx, parent, args.name);
      if (rel.kind === 'forward') throw dataErrors.invalidParam('name', `"${rel.name}" is a single record: use related.`);
      const opts = listOptions(rel.target, args);
      const value = parent.data[rel.fromField.name];
      if (value === null || value === undefined) return [];
      const optsKey = JSON.stringify([args.sort ?? [], opts.limit, opts.offset, args.filter ?? null]);
      const found = await loaderFor(ctx, parent.source!, rel, opts, optsKey).load(value);
      return found.map((r) => toGraphRecord(rel.target, r));
    },
  },
  Query: {
    aggregate: (_: unknown, args: AggregateArgs, { ctx }) => {
      return aggregateRecords(ctx, args.app, args.table, {
        aggregate: args.aggregate.join(','),
        groupBy: args.groupBy?.length ? args.groupBy.join(',') : undefined,
        having: args.having ?? [],
        where: args.filter ?? undefined,
      });
    },
  },
};
