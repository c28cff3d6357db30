// Permission-matrix probes of the secrets module (secret types, tags, secrets).
//
// Refusal rule (secret-access.ts, secret-type.service.ts): on the site's host, 403 without
// secrets:read / secrets:write on the site. Routes naming an app (`/apps/:app/…`, `?app=`)
// resolve it first, which needs view_site; the allowed caller of those holds it too.
import type { MatrixWorld, ModuleFixture, Probe } from './types.js';

const rest = (w: MatrixWorld, url: string, body?: unknown, extra: Partial<Probe> = {}): Probe => ({
  host: w.site.host,
  url,
  body,
  ...extra,
});
const APP = { needs: ['view_site'] };

async function created(w: MatrixWorld, url: string, body: unknown): Promise<any> {
  const res = await w.asOwner('POST', url, body);
  if (res.status !== 201) throw new Error(`${url}: ${res.status} ${res.text}`);
  return res.body;
}

const freshType = async (w: MatrixWorld): Promise<string> =>
  (await created(w, '/api/secret-types/', { name: w.unique('Matrix type '), sensitivity_level: 'private', schema: { type: 'object' } }))
    .slug;
const freshTag = async (w: MatrixWorld): Promise<string> => (await created(w, '/api/tags/', { name: w.unique('matrix-tag-') })).slug;
async function freshSecret(w: MatrixWorld): Promise<string> {
  const key = w.unique('matrix-secret-');
  await created(w, '/api/secrets/', { secret_type: 'json', key, value: { v: 'private' } });
  return key;
}

export const secretsFixture: ModuleFixture = {
  module: 'secrets',
  async setup(w) {
    w.state.secretType = await freshType(w);
    w.state.tag = await freshTag(w);
    w.state.secret = await freshSecret(w);
  },
  routes: {
    'GET /secret-types/': async (w) => rest(w, '/api/secret-types/'),
    'POST /secret-types/': async (w) =>
      rest(w, '/api/secret-types/', { name: w.unique('Matrix type '), sensitivity_level: 'private', schema: { type: 'object' } }),
    'GET /secret-types/:slug/': async (w) => rest(w, `/api/secret-types/${w.state.secretType}/`),
    'PUT /secret-types/:slug/': async (w) => rest(w, `/api/secret-types/${w.state.secretType}/`, { description: 'changed' }),
    'DELETE /secret-types/:slug/': async (w) => rest(w, `/api/secret-types/${await freshType(w)}/`),
    'GET /apps/:app/secrets/types/': async (w) => rest(w, `/api/apps/${w.app.slug}/secrets/types/`, undefined, APP),
    'GET /tags/': async (w) => rest(w, '/api/tags/'),
    'POST /tags/': async (w) => rest(w, '/api/tags/', { name: w.unique('matrix-tag-') }),
    'GET /tags/:slug/': async (w) => rest(w, `/api/tags/${w.state.tag}/`),
    'PUT /tags/:slug/': async (w) => rest(w, `/api/tags/${w.state.tag}/`, { name: w.state.tag, description: 'put' }),
    'PATCH /tags/:slug/': async (w) => rest(w, `/api/tags/${w.state.tag}/`, { description: 'patched' }),
    'DELETE /tags/:slug/': async (w) => rest(w, `/api/tags/${await freshTag(w)}/`),
    'GET /secrets/': async (w) => rest(w, '/api/secrets/'),
    'POST /secrets/': async (w) => rest(w, '/api/secrets/', { secret_type: 'json', key: w.unique('new-secret-'), value: { v: 1 } }),
    'GET /secrets/:key/': async (w) => rest(w, `/api/secrets/${w.state.secret}/`),
    'PUT /secrets/:key/': async (w) => rest(w, `/api/secrets/${await freshSecret(w)}/`, { secret_type: 'json', value: { v: 2 } }),
    'DELETE /secrets/:key/': async (w) => rest(w, `/api/secrets/${await freshSecret(w)}/`),
    'GET /secrets/:key/history/': async (w) => rest(w, `/api/secrets/${w.state.secret}/history/`),
    'POST /apps/:app/secrets/': async (w) =>
      rest(w, `/api/apps/${w.app.slug}/secrets/`, { key: w.unique('app-secret-'), type_slug: 'json', value: { v: 3 } }, APP),
  },
  fields: {},
};
