// REST routes of secret types (seed 2 "Secrets: types, secrets, tags"). Adapters only.
import type { RestInput, RouteSpec } from '../core/rest.js';
import type { RequestContext } from '../core/context.js';
import { listInputFromQuery, toPage, type ListResult, type Query } from '../core/listing.js';
import { resolveApp } from '../tenancy/tenancy.api.js';
import type { SecretTypeRow } from './secret-type.repository.js';
import { createSecretType, deleteSecretType, getSecretType, listSecretTypes, updateSecretType } from './secret-type.service.js';

type Handler = RouteSpec['handler'];

export const toSecretTypeView = (t: SecretTypeRow) => ({
  slug: t.slug,
  name: t.name,
  description: t.description,
  type: t.type,
  sensitivity_level: t.sensitivity_level,
  schema: t.schema,
  created_at: t.created_at.toISOString(),
  modified_at: t.modified_at.toISOString(),
});

/** The seed's list shape: `{items, count, next, previous}`. */
export function itemsPage<S, T>(ctx: RequestContext, input: RestInput, r: ListResult<S>, view: (s: S) => T) {
  const p = toPage(ctx.baseUrl + input.url, r.page, r.count, r.items.map(view));
  return { items: p.results, count: p.count, next: p.next, previous: p.previous };
}

/** `?page&page_size&search&ordering&type&sensitivity_level` as the typed list input. */
const typeListInput = (query: Query) => listInputFromQuery(query, { type: 'string', sensitivity_level: 'string' });

// Every GET of the module needs secrets:read, every other method secrets:write (the permission matrix checks both).
function route(method: RouteSpec['method'], path: string, summary: string, handler: Handler, status?: number): RouteSpec {
  return {
    method,
    path,
    scope: 'site',
    auth: 'required',
    module: 'secrets',
    permission: method === 'GET' ? 'secrets:read' : 'secrets:write',
    summary,
    handler,
    ...(status ? { status } : {}),
  };
}

export const secretTypesRoutes: RouteSpec[] = [
  route('GET', '/secret-types/', 'Secret types of the site', async (ctx, i) =>
    itemsPage(ctx, i, await listSecretTypes(ctx, typeListInput(i.query)), toSecretTypeView),
  ),
  route('POST', '/secret-types/', 'Create a secret type', async (ctx, i) => toSecretTypeView(await createSecretType(ctx, i.body)), 201),
  route('GET', '/secret-types/:slug/', 'One secret type', async (ctx, i) => toSecretTypeView(await getSecretType(ctx, i.params.slug))),
  route('PUT', '/secret-types/:slug/', 'Update name, description or schema of a secret type', async (ctx, i) =>
    toSecretTypeView(await updateSecretType(ctx, i.params.slug, i.body)),
  ),
  route(
    'DELETE',
    '/secret-types/:slug/',
    'Delete an unused custom secret type',
    async (ctx, i) => deleteSecretType(ctx, i.params.slug),
    200,
  ),
  route('GET', '/apps/:app/secrets/types/', 'Secret types available to an app', async (ctx, i) => {
    await resolveApp(ctx, i.params.app);
    return itemsPage(ctx, i, await listSecretTypes(ctx, typeListInput(i.query)), toSecretTypeView);
  }),
];
