// Running functions on request and reading their history (DECISIONS §7):
// `POST /api/apps/{app}/functions/{slug}/execute/` `{params, async}` (functions:execute),
// `GET /api/invocations/`, `GET /api/invocations/{id}/`, `GET /api/result/{task_id}/`
// (functions:read). An API key sees the invocations of its own app only.
import type { RequestContext } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { listInputFromQuery, pageRequest, param, type ListInput, type ListResult, type Query } from '../../core/listing.js';
import { isUuid } from '../../core/slug.js';
import { can } from '../../tenancy/tenancy.api.js';
import { enqueue } from '../delivery/delivery.js';
import { eventsErrors } from '../events-errors.js';
import { appFor, findFunction } from '../functions/function.service.js';
import { runFunction } from '../runtime/runner.js';
import { invocationRepository as repo, type InvocationRow } from './invocation.repository.js';

const MAX_PARAMS_BYTES = 256 * 1024;
const STATUSES = ['pending', 'running', 'succeeded', 'failed', 'timed_out'];
const TRIGGERS = ['api', 'event', 'schedule'];

export interface ExecuteInput {
  params: unknown;
  async: boolean;
}

export function parseExecuteBody(body: unknown): ExecuteInput {
  if (body === undefined || body === null) return { params: {}, async: false };
  if (typeof body !== 'object' || Array.isArray(body)) throw errors.invalid('The request body must be a JSON object.');
  const b = body as Record<string, unknown>;
  if (b.async !== undefined && typeof b.async !== 'boolean') throw errors.invalid('Invalid input.', { async: ['Must be a boolean.'] });
  const params = b.params === undefined ? {} : b.params;
  if (JSON.stringify(params).length > MAX_PARAMS_BYTES)
    throw errors.invalid('Invalid input.', { params: [`Use at most ${MAX_PARAMS_BYTES} bytes.`] });
  return { params, async: b.async === true };
}

/** The caller as a function's `user` argument: identity only, never a credential. */
function callerView(ctx: RequestContext): unknown {
  const p = ctx.principal;
  if (p.kind === 'user') return { uuid: p.uuid, username: p.username, is_staff: p.isStaff, is_superuser: p.isSuperuser };
  if (p.kind === 'api_key') return { api_key: true, app_id: p.appId };
  return null;
}

/** A run at once (its outcome) or a queued run (`async`: its task id to poll). */
export type ExecuteResult =
  | {
      async: false;
      success: boolean;
      result: unknown;
      logs: string[];
      error: string | null;
      status: string;
      invocationId: number;
      taskId: string;
    }
  | { async: true; taskId: string; invocationId: number };

export async function executeFunction(ctx: RequestContext, appRef: string, slug: string, input: ExecuteInput): Promise<ExecuteResult> {
  const app = await appFor(ctx, appRef, 'functions:execute');
  const fn = await findFunction(ctx, app, slug);
  if (!fn.is_active) throw errors.invalid('The function is not active.');
  const pool = ctx.platform.pool;
  const caller = callerView(ctx);
  const base = {
    siteId: app.siteId,
    functionId: fn.id,
    triggerType: 'api' as const,
    event: null,
    params: input.params,
    maxAttempts: 1,
    caller,
  };
  if (input.async) {
    // The caller is kept with the row: the worker reads it there (a run re-enqueued by the
    // sweep after a lost job gets it too).
    const inv = (await repo.create(pool, base))!;
    await enqueue(ctx.platform, { siteId: app.siteId, invocationId: inv.id }, inv.task_id, 1);
    return { async: true, taskId: inv.task_id, invocationId: inv.id };
  }
  const inv = (await repo.create(pool, { ...base, status: 'running' }))!;
  const outcome = await runFunction(ctx.platform, { fn, params: input.params, user: caller });
  await repo.finish(pool, inv.id, outcome, true, false);
  return {
    async: false,
    success: outcome.status === 'succeeded',
    result: outcome.result,
    logs: outcome.logs,
    error: outcome.error,
    status: outcome.status,
    invocationId: inv.id,
    taskId: inv.task_id,
  };
}

async function readSite(ctx: RequestContext) {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (!ctx.site) throw errors.tenantRequired();
  if (!(await can(ctx, 'functions:read', 'site', ctx.site.id))) throw errors.permissionDenied();
  return ctx.site;
}

function visible(ctx: RequestContext, row: InvocationRow | null, appIdOf: (r: InvocationRow) => Promise<number>): Promise<boolean> {
  if (!row) return Promise.resolve(false);
  if (ctx.principal.kind !== 'api_key') return Promise.resolve(true);
  const appId = ctx.principal.appId;
  return appIdOf(row).then((id) => id === appId);
}

async function appIdOf(ctx: RequestContext, row: InvocationRow): Promise<number> {
  const r = await ctx.platform.pool.query<{ app_id: number }>(`SELECT app_id FROM event_functions WHERE id = $1`, [row.function_id]);
  return r.rows[0]?.app_id ?? -1;
}

/** A list of invocations: a page, and the filters both transports offer. */
export interface InvocationListInput extends ListInput {
  status?: string | null;
  triggerType?: string | null;
  /** Only the runs of this function (a function id of the site). */
  functionId?: number | null;
}

/** A REST query (`page`, `page_size`, `status`, `trigger_type`, `function`) as the typed input. */
export function invocationListFromQuery(query: Query): InvocationListInput {
  const input: InvocationListInput = listInputFromQuery(query, { status: 'string', trigger_type: 'string' });
  const fnRaw = param(query, 'function');
  if (fnRaw !== undefined && fnRaw !== '' && !/^\d{1,9}$/.test(fnRaw)) throw errors.field('function', 'Must be a function id.');
  if (fnRaw) input.functionId = Number(fnRaw);
  return input;
}

function oneOf(v: string | null | undefined, name: string, allowed: string[]): string | undefined {
  if (v == null || v === '') return undefined;
  if (!allowed.includes(v)) throw errors.field(name, `Must be one of: ${allowed.join(', ')}.`);
  return v;
}

function functionIdOf(id: number | null | undefined): number | undefined {
  if (id == null) return undefined;
  if (!Number.isInteger(id) || id < 0 || id > 999_999_999) throw errors.field('function', 'Must be a function id.');
  return id;
}

export async function listInvocations(ctx: RequestContext, input: InvocationListInput): Promise<ListResult<Invocation>> {
  const site = await readSite(ctx);
  const page = pageRequest(input);
  const { rows, count } = await repo.list(
    ctx.platform.pool,
    {
      siteId: site.id,
      appId: ctx.principal.kind === 'api_key' ? ctx.principal.appId : undefined,
      status: oneOf(input.status, 'status', STATUSES),
      triggerType: oneOf(input.triggerType, 'trigger_type', TRIGGERS),
      functionId: functionIdOf(input.functionId),
    },
    page.pageSize,
    page.offset,
  );
  return { page, count, items: rows.map(toInvocation) };
}

export async function getInvocation(ctx: RequestContext, rawId: string): Promise<Invocation> {
  const site = await readSite(ctx);
  if (!/^\d{1,9}$/.test(rawId)) throw eventsErrors.invocationNotFound();
  const row = await repo.find(ctx.platform.pool, site.id, Number(rawId));
  if (!row || !(await visible(ctx, row, (r) => appIdOf(ctx, r)))) throw eventsErrors.invocationNotFound();
  return toInvocation(row);
}

export async function getResult(ctx: RequestContext, taskId: string): Promise<Invocation> {
  const site = await readSite(ctx);
  if (!isUuid(taskId)) throw eventsErrors.invocationNotFound();
  const row = await repo.findByTask(ctx.platform.pool, site.id, taskId);
  if (!row || !(await visible(ctx, row, (r) => appIdOf(ctx, r)))) throw eventsErrors.invocationNotFound();
  return toInvocation(row);
}

/** One run of a function, as the services answer it. */
export interface Invocation {
  id: number;
  functionId: number;
  functionName: string;
  functionSlug: string;
  appSlug: string;
  triggerType: InvocationRow['trigger_type'];
  event: string | null;
  status: InvocationRow['status'];
  taskId: string;
  idempotencyKey: string | null;
  params: unknown;
  result: unknown;
  error: string | null;
  logs: string[];
  attempts: number;
  maxAttempts: number;
  deliveries: number;
  deadLetter: boolean;
  startedAt: Date | null;
  finishedAt: Date | null;
  durationMs: number | null;
  createdAt: Date;
}

export const toInvocation = (i: InvocationRow): Invocation => ({
  id: i.id,
  functionId: i.function_id,
  functionName: i.function_name,
  functionSlug: i.function_slug,
  appSlug: i.app_slug,
  triggerType: i.trigger_type,
  event: i.event,
  status: i.status,
  taskId: i.task_id,
  idempotencyKey: i.idempotency_key,
  params: i.params,
  result: i.result,
  error: i.error,
  logs: i.logs,
  attempts: i.attempts,
  maxAttempts: i.max_attempts,
  deliveries: i.deliveries,
  deadLetter: i.dead_letter,
  startedAt: i.started_at,
  finishedAt: i.finished_at,
  durationMs: i.duration_ms,
  createdAt: i.created_at,
});

/** Runs of one function (GraphQL `Function.invocations`): functions:read on its site. */
export async function listFunctionInvocations(
  ctx: RequestContext,
  fn: { id: number; siteId: number; appId: number },
  input: Omit<InvocationListInput, 'functionId'>,
): Promise<ListResult<Invocation>> {
  if (ctx.principal.kind === 'anonymous') throw errors.notAuthenticated();
  if (!(await can(ctx, 'functions:read', 'site', fn.siteId))) throw errors.permissionDenied();
  if (ctx.principal.kind === 'api_key' && ctx.principal.appId !== fn.appId) throw errors.permissionDenied();
  const page = pageRequest(input);
  const { rows, count } = await repo.list(
    ctx.platform.pool,
    {
      siteId: fn.siteId,
      functionId: fn.id,
      status: oneOf(input.status, 'status', STATUSES),
      triggerType: oneOf(input.triggerType, 'trigger_type', TRIGGERS),
    },
    page.pageSize,
    page.offset,
  );
  return { page, count, items: rows.map(toInvocation) };
}
