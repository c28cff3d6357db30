// A local fake of the Microsoft Graph endpoints the document-library provider uses, over real
// HTTP: the client-credentials token endpoint, drive items addressed by path (`root:/a/b:`)
// with `/content` (PUT, GET with Range and a 302 to a download URL), `createUploadSession` and
// chunked PUTs with Content-Range, DELETE, `/children`, `createLink` and `invite`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphFake {
  url: string;
  files: Map<string, Buffer>;
  invites: { path: string; email: string; roles: string[] }[];
  tokensIssued: number;
  close(): Promise<void>;
}

const readBody = (req: http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

export async function startGraphFake(opts: { tenantId: string; clientId: string; clientSecret: string }): Promise<GraphFake> {
  const files = new Map<string, Buffer>();
  const sessions = new Map<string, { path: string; parts: Buffer[]; received: number }>();
  const invites: GraphFake['invites'] = [];
  const tokens = new Set<string>();
  const state = { tokensIssued: 0 };
  let base = '';

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const notFound = (res: http.ServerResponse) =>
    json(res, 404, { error: { code: 'itemNotFound', message: 'The resource could not be found.' } });

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    // Token endpoint (client credentials).
    if (req.method === 'POST' && url.pathname === `/${opts.tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(body.toString());
      if (
        form.get('grant_type') !== 'client_credentials' ||
        form.get('client_id') !== opts.clientId ||
        form.get('client_secret') !== opts.clientSecret
      ) {
        return json(res, 401, { error: 'invalid_client' });
      }
      const token = `tok-${++state.tokensIssued}`;
      tokens.add(token);
      return json(res, 200, { token_type: 'Bearer', expires_in: 3600, access_token: token });
    }
    // Upload-session chunks (pre-authorized URL, no bearer token).
    const session = /^\/upload\/([a-z0-9]+)$/.exec(url.pathname);
    if (session && req.method === 'PUT') {
      const s = sessions.get(session[1]);
      if (!s) return notFound(res);
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range']));
      if (!m || Number(m[1]) !== s.received || Number(m[2]) - Number(m[1]) + 1 !== body.length)
        return json(res, 416, { error: { code: 'invalidRange' } });
      s.parts.push(body);
      s.received += body.length;
      if (s.received === Number(m[3])) {
        files.set(s.path, Buffer.concat(s.parts));
        sessions.delete(session[1]);
        return json(res, 201, { name: s.path.split('/').pop(), size: s.received });
      }
      return json(res, 202, { nextExpectedRanges: [`${s.received}-`] });
    }
    if (session && req.method === 'DELETE') {
      sessions.delete(session[1]);
      res.writeHead(204).end();
      return;
    }
    // Download URL the /content GET redirects to.
    const dl = /^\/download\/(.+)$/.exec(url.pathname);
    if (dl && req.method === 'GET') {
      const file = files.get(decodeURIComponent(dl[1]));
      if (!file) return notFound(res);
      const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''));
      if (range) {
        const start = Number(range[1]);
        const end = Math.min(Number(range[2]), file.length - 1);
        res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${file.length}`, 'content-length': end - start + 1 });
        return res.end(file.subarray(start, end + 1));
      }
      res.writeHead(200, { 'content-length': file.length });
      return res.end(file);
    }
    const auth = String(req.headers.authorization ?? '');
    if (!auth.startsWith('Bearer ') || !tokens.has(auth.slice(7))) return json(res, 401, { error: { code: 'InvalidAuthenticationToken' } });
    const item = /^\/v1\.0\/sites\/[^/]+\/drive\/root:\/(.*?):?(\/(content|createUploadSession|children|createLink|invite))?$/.exec(
      url.pathname,
    );
    if (!item) return json(res, 400, { error: { code: 'invalidRequest', message: `unknown path ${url.pathname}` } });
    const p = item[1].split('/').map(decodeURIComponent).join('/');
    const action = item[3];
    const under = (prefix: string) => [...files.keys()].filter((k) => k.startsWith(prefix + '/'));
    if (action === 'content' && req.method === 'PUT') {
      files.set(p, body);
      return json(res, 201, { name: p.split('/').pop(), size: body.length });
    }
    if (action === 'content' && req.method === 'GET') {
      if (!files.has(p)) return notFound(res);
      res.writeHead(302, { location: `${base}/download/${encodeURIComponent(p)}` });
      return res.end();
    }
    if (action === 'createUploadSession' && req.method === 'POST') {
      const id = Math.random().toString(36).slice(2);
      sessions.set(id, { path: p, parts: [], received: 0 });
      return json(res, 200, { uploadUrl: `${base}/upload/${id}`, expirationDateTime: new Date(Date.now() + 3600_000).toISOString() });
    }
    if (action === 'children' && req.method === 'GET') {
      const names = new Map<string, boolean>();
      for (const k of under(p)) {
        const rest = k.slice(p.length + 1);
        const [first, ...more] = rest.split('/');
        names.set(first, more.length > 0 || names.get(first) === true);
      }
      if (names.size === 0) return notFound(res);
      return json(res, 200, {
        value: [...names].map(([name, folder]) => (folder ? { name, folder: { childCount: 1 } } : { name, file: {} })),
      });
    }
    if (action === 'createLink' && req.method === 'POST') {
      if (!files.has(p)) return notFound(res);
      const { type, scope } = JSON.parse(body.toString());
      return json(res, 200, { link: { type, scope, webUrl: `https://fake.sharepoint.test/share/${encodeURIComponent(p)}?anon=1` } });
    }
    if (action === 'invite' && req.method === 'POST') {
      if (!files.has(p)) return notFound(res);
      const b = JSON.parse(body.toString());
      invites.push({ path: p, email: b.recipients[0].email, roles: b.roles });
      return json(res, 200, { value: [{ roles: b.roles }] });
    }
    if (!action && req.method === 'GET') {
      if (!files.has(p)) return notFound(res);
      return json(res, 200, {
        name: p.split('/').pop(),
        size: files.get(p)!.length,
        webUrl: `https://fake.sharepoint.test/doc/${encodeURIComponent(p)}`,
      });
    }
    if (!action && req.method === 'DELETE') {
      const folder = under(p);
      if (!files.has(p) && folder.length === 0) return notFound(res);
      files.delete(p);
      for (const k of folder) files.delete(k);
      res.writeHead(204).end();
      return;
    }
    return json(res, 405, { error: { code: 'notSupported' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    files,
    invites,
    get tokensIssued() {
      return state.tokensIssued;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
