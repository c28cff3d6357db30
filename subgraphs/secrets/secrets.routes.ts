// REST routes of secrets (seed document 2 "Secrets"): adapters calling one service function each.
import type { RouteSpec } from '../core/rest.js';
import { listSecretsRest, secretHistory } from './secret-list.service.js';
import { createSecret, deleteSecret, getSecret, replaceSecret } from './secret.service.js';

type Handler = RouteSpec['handler'];

// Every GET of the module needs secrets:read, every other method secrets:write (the permission matrix checks both).
function route(method: RouteSpec['method'], path: string, summary: string, handler: Handler, extra: Partial<RouteSpec> = {}): RouteSpec {
  return {
    method,
    path,
    scope: 'site',
    auth: 'required',
    module: 'secrets',
    permission: method === 'GET' ? 'secrets:read' : 'secrets:write',
    summary,
    handler,
    ...extra,
  };
}

/** A secret's REST body; `value` is any JSON (compiled serializer for the hot read). */
const SECRET_SCHEMA = {
  type: 'object',
  properties: { key: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } }, secret_type: { type: 'string' }, value: {} },
  required: ['key', 'tags', 'secret_type', 'value'],
};

export const secretsRoutes: RouteSpec[] = [
  route('GET', '/secrets/', 'Secrets of one tier (site, or `app`), values included', (ctx, i) =>
    listSecretsRest(ctx, i.query, ctx.baseUrl + i.url),
  ),
  route('POST', '/secrets/', 'Create a secret at site tier or (`app`) app tier', (ctx, i) => createSecret(ctx, i.body)),
  // The one secrets endpoint open to anonymous callers, who receive public secrets only.
  route('GET', '/secrets/:key/', 'One secret: app tier then site tier', (ctx, i) => getSecret(ctx, i.params.key, i.query), {
    auth: 'optional',
    responseSchema: SECRET_SCHEMA,
  }),
  route('PUT', '/secrets/:key/', 'Replace a secret (type, value, tags, key)', (ctx, i) =>
    replaceSecret(ctx, i.params.key, i.query, i.body),
  ),
  route('DELETE', '/secrets/:key/', 'Delete a secret', (ctx, i) => deleteSecret(ctx, i.params.key, i.query), { status: 200 }),
  route('GET', '/secrets/:key/history/', 'History of a key in a tier, without values', (ctx, i) =>
    secretHistory(ctx, i.params.key, i.query),
  ),
  route('POST', '/apps/:app/secrets/', 'Create an app-tier secret', (ctx, i) => createSecret(ctx, i.body, i.params.app)),
];
