// What every subgraph resolver receives: the request context and a per-request store of
// DataLoaders. In-process the gateway builds one per GraphQL request; over HTTP each
// subgraph server builds one per incoming request. Loaders never outlive the request, so no
// tenant's data is cached beyond it.
import type { RequestContext } from '../context.js';
import type { ListInput, ListResult } from '../listing.js';

export interface SubgraphContext {
  ctx: RequestContext;
  /** Per-request loaders by name; see perRequest(). */
  loaders: Map<string, unknown>;
}

export function createSubgraphContext(ctx: RequestContext): SubgraphContext {
  return { ctx, loaders: new Map() };
}

/** One instance of `make(ctx)` per request and name (DataLoaders, typically). */
export function perRequest<T>(context: SubgraphContext, name: string, make: (ctx: RequestContext) => T): T {
  let value = context.loaders.get(name) as T | undefined;
  if (value === undefined) {
    value = make(context.ctx);
    context.loaders.set(name, value);
  }
  return value;
}

/** GraphQL list arguments: already a typed list input (services take them as they are). */
export type PageArgs = Pick<ListInput, 'page' | 'pageSize' | 'search'>;

export interface Connection<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

/** A service list result (`{page, count, items}`) as a GraphQL connection. */
export function toConnection<S, T>(
  result: Pick<ListResult<S>, 'count' | 'items'> & { page: { page: number; pageSize: number } },
  map: (item: S) => T,
): Connection<T> {
  return { items: result.items.map(map), total: result.count, page: result.page.page, pageSize: result.page.pageSize };
}
