// A small Elasticsearch stand-in speaking the real HTTP protocol for the official client:
// `GET /` (product check header included), `GET|POST /{index}/_search` over in-memory
// documents with `match_all`, `term`, `terms` and `range` queries, `size` and `from`. Every
// search body received is kept, so tests can see what the platform sent. Anything else is 404.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SearchFake {
  url: string;
  bodies: Record<string, unknown>[];
  paths: string[];
  close(): Promise<void>;
}

type Doc = Record<string, unknown>;

function matches(doc: Doc, query: Record<string, any> | undefined): boolean {
  if (!query || query.match_all) return true;
  if (query.term) {
    const [[field, v]] = Object.entries(query.term as Record<string, any>);
    return doc[field] === (v && typeof v === 'object' && 'value' in v ? v.value : v);
  }
  if (query.terms) {
    const [[field, list]] = Object.entries(query.terms as Record<string, unknown[]>);
    return Array.isArray(list) && list.some((x) => x === doc[field]);
  }
  if (query.range) {
    const [[field, r]] = Object.entries(query.range as Record<string, Record<string, number>>);
    const v = doc[field] as number;
    return (
      (r.gt === undefined || v > r.gt) &&
      (r.gte === undefined || v >= r.gte) &&
      (r.lt === undefined || v < r.lt) &&
      (r.lte === undefined || v <= r.lte)
    );
  }
  if (query.bool?.filter) return (query.bool.filter as Record<string, any>[]).every((q) => matches(doc, q));
  return false;
}

export async function startSearchFake(index: string, docs: Doc[]): Promise<SearchFake> {
  const bodies: Record<string, unknown>[] = [];
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' });
        res.end(JSON.stringify(body));
      };
      const url = new URL(req.url ?? '/', 'http://fake');
      paths.push(`${req.method} ${url.pathname}`);
      if (url.pathname === '/' && req.method === 'GET')
        return send(200, { name: 'fake', version: { number: '8.19.0' }, tagline: 'You Know, for Search' });
      if (url.pathname === `/${index}/_search` && (req.method === 'POST' || req.method === 'GET')) {
        const body = raw ? JSON.parse(raw) : {};
        bodies.push(body);
        const hits = docs.filter((d) => matches(d, body.query));
        const from = body.from ?? 0;
        const size = body.size ?? 10;
        return send(200, {
          took: 1,
          timed_out: false,
          hits: {
            total: { value: hits.length, relation: 'eq' },
            hits: hits.slice(from, from + size).map((d, i) => ({ _index: index, _id: String(d.id ?? i), _score: 1, _source: d })),
          },
        });
      }
      return send(404, { error: { type: 'not_found' }, status: 404 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, bodies, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
