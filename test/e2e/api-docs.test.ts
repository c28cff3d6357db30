// The front door for people: GET / points to the API, GET /graphql in a browser is an IDE served
// from the platform's own files, and the REST API is described by an OpenAPI 3.1 document
// generated from the route table (every route in it, valid against the OpenAPI schema) with a
// browsable page whose assets are local too. The real-browser check is explorer-browser.test.ts.
import fs from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { IDE_FILES, SANDBOX_CSP } from '../../gateway/explorer.js';
import { ROUTES } from '../../gateway/rest/route-table.js';
import { openapiPath } from '../../gateway/rest/openapi.js';
import { mountedPaths } from '../../subgraphs/core/rest.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { insertOrg, insertSite } from '../support/tenants.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  const org = await insertOrg(t.platform, 'docs-org');
  await insertSite(t.platform, org.id, 'shop-site', 'shop.localhost');
});
afterAll(() => t.close());

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** `src` and `href` of scripts, styles and icons in an HTML page. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
}

describe('GET /', () => {
  test('answers JSON pointing to GraphQL, the REST docs and the health routes', async () => {
    const res = await t.call('GET', '/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      graphql: { endpoint: '/graphql' },
      rest: { docs: '/api/docs/', openapi: '/api/openapi.json' },
      health: { live: '/healthz', ready: '/readyz' },
    });
  });

  test('a browser gets a small page with the same links, on any host', async () => {
    const res = await t.call('GET', '/', { headers: HTML, host: 'nowhere.example' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const href of ['/graphql', '/api/docs/', '/api/openapi.json', '/healthz', '/readyz']) {
      expect(res.text).toContain(`href="${href}"`);
    }
  });
});

describe('GraphQL explorer', () => {
  test('GET /graphql from a browser serves the IDE with every asset from this server', async () => {
    const res = await t.call('GET', '/graphql', { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('AltairGraphQL.init(');
    expect(res.text).toContain('<base href="/graphql/ide/">');
    expect(res.text).toContain('endpointURL: `/graphql`');
    const assets = assetUrls(res.text);
    expect(assets.length).toBeGreaterThan(1);
    for (const url of assets) {
      // Relative to <base href>: nothing from another origin.
      expect(url).not.toMatch(/^(https?:)?\/\//);
      const asset = await t.call('GET', new URL(url, 'http://localhost/graphql/ide/').pathname);
      expect({ url, status: asset.status }).toEqual({ url, status: 200 });
    }
  });

  test('the IDE is served on a tenant host too, and its files on any host', async () => {
    const page = await t.call('GET', '/graphql', { headers: HTML, host: 'shop.localhost' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('AltairGraphQL.init(');
    const main = await t.call('GET', '/graphql/ide/main.js', { host: 'nowhere.example' });
    expect(main.status).toBe(200);
    expect(main.headers['content-type']).toMatch(/javascript/);
  });

  test('the IDE files and the sandbox header are the ones altair-static names', async () => {
    const altair = await import('altair-static');
    expect(IDE_FILES).toBe(altair.getDistDirectory());
    expect(SANDBOX_CSP).toBe(altair.SANDBOX_FRAME_CSP);
  });

  test("the IDE's script sandbox frame is served sandboxed", async () => {
    const res = await t.call('GET', '/graphql/ide/iframe-sandbox/index.html');
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe('sandbox allow-scripts');
  });

  test('an unknown IDE file is a 404, not a directory listing or a file outside the bundle', async () => {
    expect((await t.call('GET', '/graphql/ide/nope.js')).status).toBe(404);
    expect((await t.call('GET', '/graphql/ide/../../package.json')).status).toBe(404);
    expect((await t.call('GET', '/graphql/ide/%2e%2e/%2e%2e/package.json')).status).toBe(404);
  });

  test('GET /graphql?ide=sandbox serves Apollo Sandbox (for a browser that is online)', async () => {
    const res = await t.call('GET', '/graphql?ide=sandbox', { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.text).toContain('embeddable-sandbox.cdn.apollographql.com');
    expect(res.text).toContain('"includeCookies":true');
  });

  test('operations still run: POST, and GET with a query and the preflight header', async () => {
    const post = await t.call('POST', '/graphql', { body: { query: '{ __typename }' } });
    expect(post.body).toEqual({ data: { __typename: 'Query' } });
    const get = await t.call('GET', '/graphql?query=%7B__typename%7D', {
      headers: { accept: 'application/json', 'apollo-require-preflight': 'true' },
    });
    expect(get.status).toBe(200);
    expect(JSON.parse(get.text)).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('docs/graphql.md', () => {
  const examples = [
    ...fs.readFileSync(new URL('../../docs/graphql.md', import.meta.url), 'utf8').matchAll(/```graphql\n([\s\S]*?)```/g),
  ].map((m) => m[1]);

  test('its example operations are valid against the served schema', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
    const user = await t.createUser();
    for (const query of examples) {
      // On a site's host with a signed-in user: answers may be errors (no such app), never
      // errors of the document itself.
      const res = await t.call('POST', '/graphql', { body: { query }, token: t.tokenFor(user), host: 'shop.localhost' });
      const codes = (res.body.errors ?? []).map((e: any) => e.extensions?.code);
      expect({ query, codes: codes.filter((c: string) => ['invalid', 'parse_error', 'GRAPHQL_VALIDATION_FAILED'].includes(c)) }).toEqual({
        query,
        codes: [],
      });
    }
  });

  test('what it says about browsers: a GET without a preflight header or a text/plain POST is refused', async () => {
    const bare = await t.call('GET', '/graphql?query=%7B__typename%7D', { headers: { accept: 'application/json' } });
    expect(bare.status).toBe(400);
    const form = await t.call('POST', '/graphql', { body: '{"query":"{ __typename }"}', headers: { 'content-type': 'text/plain' } });
    expect(form.status).toBe(400);
    expect(form.text).not.toContain('"__typename"');
  });
});

describe('OpenAPI document', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await t.call('GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.body;
  });

  test('is valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test('has every route of the route table, on every path it is served at', () => {
    const missing: string[] = [];
    for (const spec of ROUTES) {
      for (const served of mountedPaths(spec)) {
        const op = doc.paths[openapiPath(served).path]?.[spec.method.toLowerCase()];
        if (!op || op.summary !== spec.summary || !op.tags.includes(spec.module)) missing.push(`${spec.method} ${served}`);
      }
    }
    expect(missing).toEqual([]);
    const count = Object.values(doc.paths).reduce((n: number, item: any) => n + Object.keys(item).length, 0);
    expect(count).toBe(ROUTES.reduce((n, spec) => n + mountedPaths(spec).length, 0));
  });

  test('operation ids are unique and path parameters are declared', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        expect(ids.has(op.operationId)).toBe(false);
        ids.add(op.operationId);
        const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
        expect(declared.sort()).toEqual([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort());
      }
    }
  });

  test('names the three ways to authenticate, and which a route accepts', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(schemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'sessionid' });
    expect(schemes.csrf).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-CSRFToken' });
    // A write on a session needs the CSRF header; an anonymous route lists `{}`.
    const create = doc.paths['/api/organizations/'].post;
    expect(create.security).toEqual(expect.arrayContaining([{ bearer: [] }, { apiKey: [] }, { session: [], csrf: [] }]));
    expect(create.security).not.toContainEqual({});
    const login = doc.paths['/api/auth/session/login/'].post;
    expect(login.security).toContainEqual({});
    expect(login.security).toContainEqual({ session: [] });
  });

  test('carries the request and response schemas the route table declares and the errors of each module', () => {
    for (const spec of ROUTES.filter((r) => r.responseSchema)) {
      const op = doc.paths[openapiPath(mountedPaths(spec)[0]).path][spec.method.toLowerCase()];
      expect(Object.values<any>(op.responses).map((r) => r.content?.['application/json']?.schema)).toContainEqual(spec.responseSchema);
    }
    const withBody = ROUTES.filter((r) => r.requestSchema);
    expect(withBody.length).toBeGreaterThan(0);
    for (const spec of withBody) {
      const op = doc.paths[openapiPath(mountedPaths(spec)[0]).path][spec.method.toLowerCase()];
      expect(op.requestBody.content['application/json'].schema).toEqual(spec.requestSchema);
    }
    expect(doc.paths['/api/organizations/'].post.requestBody).toMatchObject({ required: true });
    const errorRef = (path: string, method: string, status: number) => doc.paths[path][method].responses[String(status)]?.$ref;
    // A site route of a module with its own envelope, and the platform envelope for 401/429.
    const secrets = '/api/secret-types/';
    expect(doc.paths[secrets]).toBeDefined();
    expect(errorRef(secrets, 'get', 403)).toBe('#/components/responses/E403_SecretsError');
    expect(errorRef(secrets, 'get', 401)).toBe('#/components/responses/E401_PlatformError');
    expect(doc.components.schemas.SecretsError.properties).toHaveProperty('error');
    expect(doc.components.schemas.PlatformError.required).toEqual(['detail', 'code', 'status_code']);
    // Every $ref points at something.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]);
    for (const ref of new Set(refs)) {
      const target = ref.split('/').reduce((node: any, key) => node?.[key], doc);
      expect({ ref, found: target !== undefined }).toEqual({ ref, found: true });
    }
  });

  test('is public and the same on every host', async () => {
    const other = await t.call('GET', '/api/openapi.json', { host: 'nowhere.example' });
    expect(other.status).toBe(200);
    expect(other.body).toEqual(doc);
  });
});

describe('REST documentation page', () => {
  test('GET /api/docs/ serves Swagger UI with its assets from this server', async () => {
    const res = await t.call('GET', '/api/docs/', { headers: HTML });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    const assets = assetUrls(res.text);
    expect(assets).toEqual(expect.arrayContaining([expect.stringContaining('swagger-ui-bundle.js')]));
    for (const url of assets) {
      expect(url).not.toMatch(/^(https?:)?\/\//);
      const asset = await t.call('GET', new URL(url, 'http://localhost/api/docs/').pathname);
      expect({ url, status: asset.status }).toEqual({ url, status: 200 });
    }
  });

  test('the page reads the same document', async () => {
    const viaUi = await t.call('GET', '/api/docs/json');
    const direct = await t.call('GET', '/api/openapi.json');
    expect(viaUi.status).toBe(200);
    expect(viaUi.body).toEqual(direct.body);
  });
});
