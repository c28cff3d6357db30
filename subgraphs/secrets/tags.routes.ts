// REST routes of secret tags (seed 2 "Secrets: types, secrets, tags"). Adapters only.
import { listInputFromQuery } from '../core/listing.js';
import type { RouteSpec } from '../core/rest.js';
import { itemsPage } from './secret-types.routes.js';
import { createTag, deleteTag, getTag, listTags, updateTag, type TagRow } from './tag.service.js';

export const toTagView = (t: TagRow) => ({
  name: t.name,
  slug: t.slug,
  description: t.description,
  color: t.color,
  created_at: t.created_at.toISOString(),
  modified_at: t.modified_at.toISOString(),
});

// Every GET of the module needs secrets:read, every other method secrets:write (the permission matrix checks both).
function route(method: RouteSpec['method'], path: string, summary: string, handler: RouteSpec['handler'], status?: number): RouteSpec {
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

export const tagsRoutes: RouteSpec[] = [
  route('GET', '/tags/', 'Secret tags of the site', async (ctx, i) =>
    itemsPage(ctx, i, await listTags(ctx, listInputFromQuery(i.query)), toTagView),
  ),
  route('POST', '/tags/', 'Create a tag', async (ctx, i) => toTagView(await createTag(ctx, i.body)), 201),
  route('GET', '/tags/:slug/', 'One tag', async (ctx, i) => toTagView(await getTag(ctx, i.params.slug))),
  route('PUT', '/tags/:slug/', 'Replace a tag', async (ctx, i) => toTagView(await updateTag(ctx, i.params.slug, i.body, false))),
  route('PATCH', '/tags/:slug/', 'Update a tag', async (ctx, i) => toTagView(await updateTag(ctx, i.params.slug, i.body, true))),
  route('DELETE', '/tags/:slug/', 'Delete a tag (removed from every secret)', async (ctx, i) => deleteTag(ctx, i.params.slug), 200),
];
