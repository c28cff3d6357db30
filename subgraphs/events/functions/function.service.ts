// Functions of an app (DECISIONS §7): CRUD under /api/apps/{app}/functions/. Reads need
// `functions:read`, writes `functions:write` on the app's site. A proxy function gets a signing
// secret when it is created (or first becomes a proxy); the secret is shown in that answer only.
import crypto from 'node:crypto';
import type { RequestContext } from '../../core/context.js';
import { isUniqueViolation } from '../../core/db.js';
import { errors } from '../../core/errors.js';
import { pageRequest, type ListInput, type ListResult } from '../../core/listing.js';
import { isUuid, slugify, withUniqueSlug } from '../../core/slug.js';
import { can, requireApp, resolveApp, type AppRow } from '../../tenancy/tenancy.api.js';
import { eventsErrors } from '../events-errors.js';
import { completeFunction, FUNCTION_DEFAULTS, parseFunctionInput, type FunctionFields } from './function-input.js';
import { functionRepository as repo, type ExecutionMode, type FunctionRow, type FunctionWrite } from './function.repository.js';

export type { FunctionRow };

/** A function as the services answer it; REST and GraphQL render their own views. */
export interface EventFunction {
  id: number;
  siteId: number;
  appId: number;
  /** The function's app: UUID, slug and name. */
  app: { uuid: string; slug: string; name: string };
  name: string;
  slug: string;
  description: string;
  executionMode: ExecutionMode;
  code: string;
  webhookUrl: string | null;
  headers: Record<string, string>;
  systemFunction: string | null;
  timeoutSeconds: number;
  filterConditions: string | null;
  isActive: boolean;
  isPublic: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A created or changed function, and the proxy signing secret when this write generated it (shown once). */
export interface SavedFunction {
  function: EventFunction;
  webhookSecret: string | null;
}

export const toEventFunction = (f: FunctionRow): EventFunction => ({
  id: f.id,
  siteId: f.site_id,
  appId: f.app_id,
  app: { uuid: f.app_uuid, slug: f.app_slug, name: f.app_name },
  name: f.name,
  slug: f.slug,
  description: f.description,
  executionMode: f.execution_mode,
  code: f.code,
  webhookUrl: f.webhook_url,
  headers: f.headers,
  systemFunction: f.system_name,
  timeoutSeconds: f.timeout_seconds,
  filterConditions: f.filter_conditions,
  isActive: f.is_active,
  isPublic: f.is_public,
  createdAt: f.created_at,
  updatedAt: f.updated_at,
});

/** The app of the path, and 403 unless the caller holds `permission` on its site. */
export async function appFor(ctx: RequestContext, appRef: string, permission: string): Promise<AppRow> {
  // GraphQL on a platform host names the app by UUID (App.id): any visible app.
  if (!ctx.site && isUuid(appRef)) return requireApp(ctx, appRef, permission);
  const app = await resolveApp(ctx, appRef);
  if (!(await can(ctx, permission, 'site', app.siteId))) throw errors.permissionDenied();
  return app;
}

export async function listFunctions(ctx: RequestContext, appRef: string, input: ListInput): Promise<ListResult<EventFunction>> {
  const app = await appFor(ctx, appRef, 'functions:read');
  const page = pageRequest(input);
  const { rows, count } = await repo.list(ctx.platform.pool, app.siteId, app.id, page.pageSize, page.offset);
  return { page, count, items: rows.map(toEventFunction) };
}

export async function findFunction(ctx: RequestContext, app: AppRow, slug: string): Promise<FunctionRow> {
  const row = await repo.findBySlug(ctx.platform.pool, app.siteId, app.id, slug);
  if (!row) throw eventsErrors.functionNotFound();
  return row;
}

export async function getFunction(ctx: RequestContext, appRef: string, slug: string): Promise<EventFunction> {
  return toEventFunction(await findFunction(ctx, await appFor(ctx, appRef, 'functions:read'), slug));
}

const newSecret = () => 'whsec_' + crypto.randomBytes(32).toString('base64');

const slugTaken = (slug: string) =>
  errors.invalid('Invalid input.', { slug: [`A function with slug "${slug}" already exists in this app.`] });

export async function createFunction(ctx: RequestContext, appRef: string, fields: FunctionFields): Promise<SavedFunction> {
  const app = await appFor(ctx, appRef, 'functions:write');
  const input = parseFunctionInput(fields, false);
  const f = completeFunction({ ...FUNCTION_DEFAULTS, name: input.name!, slug: '' }, input);
  const secret = f.execution_mode === 'proxy' ? newSecret() : null;
  const pool = ctx.platform.pool;
  let id: number;
  if (input.slug) {
    try {
      id = await repo.insert(pool, app.siteId, app.id, f, secret);
    } catch (e) {
      if (isUniqueViolation(e)) throw slugTaken(input.slug);
      throw e;
    }
  } else {
    id = await withUniqueSlug({
      base: slugify(f.name, 'function'),
      taken: (base) => repo.slugsLike(pool, app.id, base),
      insert: (slug) => repo.insert(pool, app.siteId, app.id, { ...f, slug }, secret),
    });
  }
  const row = (await repo.findById(pool, app.siteId, id))!;
  return { function: toEventFunction(row), webhookSecret: secret };
}

export async function updateFunction(
  ctx: RequestContext,
  appRef: string,
  slug: string,
  fields: FunctionFields,
  partial: boolean,
): Promise<SavedFunction> {
  const app = await appFor(ctx, appRef, 'functions:write');
  const row = await findFunction(ctx, app, slug);
  const input = parseFunctionInput(fields, partial);
  const current: FunctionWrite = partial
    ? row
    : { ...FUNCTION_DEFAULTS, name: row.name, slug: row.slug, execution_mode: row.execution_mode };
  const f = completeFunction({ ...current, headers: current.headers ?? {} }, input);
  const fresh = f.execution_mode === 'proxy' && !row.webhook_secret ? newSecret() : null;
  try {
    await repo.update(ctx.platform.pool, app.siteId, row.id, f, fresh ?? row.webhook_secret);
  } catch (e) {
    if (isUniqueViolation(e)) throw slugTaken(f.slug);
    throw e;
  }
  const saved = (await repo.findById(ctx.platform.pool, app.siteId, row.id))!;
  return { function: toEventFunction(saved), webhookSecret: fresh };
}

/** Deletes a function; answers it as it was. */
export async function deleteFunction(ctx: RequestContext, appRef: string, slug: string): Promise<EventFunction> {
  const app = await appFor(ctx, appRef, 'functions:write');
  const row = await findFunction(ctx, app, slug);
  await repo.remove(ctx.platform.pool, app.siteId, row.id);
  return toEventFunction(row);
}
