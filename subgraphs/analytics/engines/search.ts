// External Elasticsearch/OpenSearch through @elastic/elasticsearch: only the `_search`
// endpoint of the connection's index is ever called, with `size` capped at maxRows (and the
// connection's max_result_rows) and a request time-out. Rows are the hits' `_source` with
// `_id`; a body with aggregations and no hits answers one row `{aggregations}`.
import { Client } from '@elastic/elasticsearch';
import { bindSearch } from '../template/search-template.js';
import type { Connector, RunRequest, RunResult } from './connector.js';

export interface SearchConnection {
  url: string;
  index: string;
  username?: string;
  password?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  maxResultRows: number;
}

export function searchConnector(c: SearchConnection): Connector {
  const client = new Client({
    node: c.url,
    auth: c.apiKey ? { apiKey: c.apiKey } : c.username ? { username: c.username, password: c.password ?? '' } : undefined,
    headers: c.headers,
    maxRetries: 0,
  });
  const run = async (req: RunRequest): Promise<RunResult> => {
    const body = bindSearch(req.text, req.values);
    const cap = Math.min(req.maxRows, c.maxResultRows);
    const asked = typeof body.size === 'number' && body.size >= 0 ? Math.trunc(body.size) : cap;
    const size = Math.min(asked, cap);
    const res = await client.search({ index: c.index, ...body, size, timeout: `${Math.trunc(req.timeoutMs)}ms` } as never, {
      requestTimeout: req.timeoutMs + 2000,
    });
    const hits = (res.hits?.hits ?? []) as { _id?: string; _source?: Record<string, unknown> }[];
    const total = typeof res.hits?.total === 'number' ? res.hits.total : (res.hits?.total?.value ?? hits.length);
    const rows = hits.map((h) => ({ _id: h._id, ...(h._source ?? {}) }));
    if (rows.length === 0 && res.aggregations) return { rows: [{ aggregations: res.aggregations }], truncated: false };
    return { rows, truncated: total > rows.length && size === cap };
  };
  return {
    run,
    close: () => client.close(),
  };
}
