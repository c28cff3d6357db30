// REST routes of secrets (seed document 2 "Secrets"): adapters calling one service function each.
import type { RequestContext } from '../core/context.js';
import type { RestInput, RouteSpec } from '../core/rest.js';
import { errors } from '../core/errors.js';
import { listInputFromQuery, param, toPage, type Query } from '../core/listing.js';
import type { HistoryWindow, HistoryList } from './history.service.js';
import { listTierSecrets, secretHistory, type TierSecretsInput } from './secret-list.service.js';
import { createSecret, deleteSecret, getSecret, replaceSecret, type SecretReadInput, type TierInput } from './secret.service.js';

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

/** `?tags=a,b` as a list (absent: no filter). */
const tagList = (raw: string | undefined) => raw?.split(',');

const tierInput = (query: Query): TierInput => {
  const app = param(query, 'app');
  return app === undefined ? {} : { app };
};

function listInput(query: Query): TierSecretsInput {
  const { tags, ...input } = listInputFromQuery(query, {
    app: 'string',
    key: 'string',
    tags: 'string',
    secret_type: 'string',
    created_by: 'string',
  });
  return tags === undefined ? input : { ...input, tags: tagList(tags) };
}

function readInput(query: Query): SecretReadInput {
  const tags = param(query, 'tags');
  return tags === undefined ? tierInput(query) : { ...tierInput(query), tags: tagList(tags) };
}

function wholeNumber(query: Query, name: string): number | undefined {
  const raw = param(query, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw errors.field(name, `"${raw}" is not a whole number.`);
  return Number(raw);
}

const historyInput = (query: Query): HistoryWindow => ({
  ...tierInput(query),
  limit: wholeNumber(query, 'limit'),
  offset: wholeNumber(query, 'offset'),
});

/** The seed's list shape `{items, count, next, previous}` (values included: the caller may read them). */
async function secretsPage(ctx: RequestContext, i: RestInput) {
  const r = await listTierSecrets(ctx, listInput(i.query));
  const p = toPage(ctx.baseUrl + i.url, r.page, r.count, r.items);
  return { items: p.results, count: p.count, next: p.next, previous: p.previous };
}

/** The seed's history shape (snake_case, ISO times, has_next/has_previous). */
const historyView = (h: HistoryList) => ({
  key: h.key,
  app: h.app,
  results: h.entries.map((e) => ({
    action: e.action,
    user: e.username,
    timestamp: e.at.toISOString(),
    key: e.key,
    app: e.app,
    secret_type: e.secretType,
    changes: e.changes,
  })),
  total_count: h.total,
  limit: h.limit,
  offset: h.offset,
  has_next: h.offset + h.entries.length < h.total,
  has_previous: h.offset > 0,
});

export const secretsRoutes: RouteSpec[] = [
  route('GET', '/secrets/', 'Secrets of one tier (site, or `app`), values included', secretsPage),
  route('POST', '/secrets/', 'Create a secret at site tier or (`app`) app tier', (ctx, i) => createSecret(ctx, i.body)),
  // The one secrets endpoint open to anonymous callers, who receive public secrets only.
  route('GET', '/secrets/:key/', 'One secret: app tier then site tier', (ctx, i) => getSecret(ctx, i.params.key, readInput(i.query)), {
    auth: 'optional',
    responseSchema: SECRET_SCHEMA,
  }),
  route('PUT', '/secrets/:key/', 'Replace a secret (type, value, tags, key)', (ctx, i) =>
    replaceSecret(ctx, i.params.key, tierInput(i.query), i.body),
  ),
  route('DELETE', '/secrets/:key/', 'Delete a secret', (ctx, i) => deleteSecret(ctx, i.params.key, tierInput(i.query)), { status: 200 }),
  route('GET', '/secrets/:key/history/', 'History of a key in a tier, without values', async (ctx, i) =>
    historyView(await secretHistory(ctx, i.params.key, historyInput(i.query))),
  ),
  route('POST', '/apps/:app/secrets/', 'Create an app-tier secret', (ctx, i) => createSecret(ctx, i.body, i.params.app)),
];
