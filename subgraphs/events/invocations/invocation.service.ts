// Running functions on request and reading their history (DECISIONS §7):
// `POST /api/apps/{app}/functions/{slug}/execute/` `{params, async}` (functions:execute),
// `GET /api/invocations/`, `GET /api/invocations/{id}/`, `GET /api/result/{task_id}/`
// (functions:read). An API key sees the invocations of its own app only.
import type { RequestContext } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { listInputFromQuery, pageRequest, param, type ListInput, type Query } from '../../core/listing.js';
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

export type ExecuteResult =
  | {
      async: false;
      success: boolean;
      result: unknown;
      logs: string[];
      error: string | null;
      status: string;
      invocation_id: number;
      task_id: string;
    }
  | { async: true; task_id: string; invocation_id: number };

export async function executeFunction(ctx: RequestContext, appRef: string, slug: string, input: ExecuteInput): Promise<ExecuteResult> {
  const app = await appFor(ctx, appRef, 'functions:execute');
  const fn = await findFunction(ctx, app, slug);
  if (!fn.is_active) throw errors.invalid('The function is not active.');
  const pool = ctx.platform.pool;
  const base = { siteId: app.siteId, functionId: fn.id, triggerType: 'api' as const, event: null, params: input.params, maxAttempts: 1 };
  if (input.async) {
    const inv = (await repo.create(pool, base))!;
    await enqueue(ctx.platform, { siteId: app.siteId, invocationId: inv.id, user: callerView(ctx) }, inv.task_id, 1);
    return { async: true, task_id: inv.task_id, invocation_id: inv.id };
  }
  const inv = (await repo.create(pool, { ...base, status: 'running' }))!;
  const outcome = await runFunction(ctx.platform, { fn, params: input.params, user: callerView(ctx) });
  await repo.finish(pool, inv.id, outcome, true, false);
  return {
    async: false,
    success: outcome.status === 'succeeded',
    result: outcome.result,
    logs: outcome.logs,
    error: outcome.error,
    status: outcome.status,
    invocation_id: inv.id,
    task_id: inv.task_id,
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

export async function listInvocations(ctx: RequestContext, input: InvocationListInput) {
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
  return { page, count, items: rows };
}

export async function getInvocation(ctx: RequestContext, rawId: string): Promise<InvocationRow> {
  const site = await readSite(ctx);
  if (!/^\d{1,9}$/.test(rawId)) throw eventsErrors.invocationNotFound();
  const row = await repo.find(ctx.platform.pool, site.id, Number(rawId));
  if (!row || !(await visible(ctx, row, (r) => appIdOf(ctx, r)))) throw eventsErrors.invocationNotFound();
  return row;
}

export async function getResult(ctx: RequestContext, taskId: string): Promise<InvocationRow> {
  const site = await readSite(ctx);
  if (!isUuid(taskId)) throw eventsErrors.invocationNotFound();
  const row = await repo.findByTask(ctx.platform.pool, site.id, taskId);
  if (!row || !(await visible(ctx, row, (r) => appIdOf(ctx, r)))) throw eventsErrors.invocationNotFound();
  return row;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toInvocationView = (i: InvocationRow) => ({
  id: i.id,
  function: i.function_id,
  function_name: i.function_name,
  function_slug: i.function_slug,
  app_slug: i.app_slug,
  trigger_type: i.trigger_type,
  event: i.event,
  status: i.status,
  task_id: i.task_id,
  idempotency_key: i.idempotency_key,
  params: i.params,
  result: i.result,
  error: i.error,
  logs: i.logs,
  attempts: i.attempts,
  max_attempts: i.max_attempts,
  deliveries: i.deliveries,
  dead_letter: i.dead_letter,
  started_at: iso(i.started_at),
  finished_at: iso(i.finished_at),
  duration_ms: i.duration_ms,
  created_at: iso(i.created_at),
});

export const toResultView = (i: InvocationRow) => ({
  task_id: i.task_id,
  invocation_id: i.id,
  status: i.status,
  ready: ['succeeded', 'failed', 'timed_out'].includes(i.status),
  success: i.status === 'succeeded',
  result: i.result,
  error: i.error,
  logs: i.logs,
});

/** Runs of one function (GraphQL `Function.invocations`): functions:read on its site. */
export async function listFunctionInvocations(
  ctx: RequestContext,
  fn: { id: number; siteId: number; appId: number },
  input: Omit<InvocationListInput, 'functionId'>,
) {
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
  return { page, count, items: rows };
}
