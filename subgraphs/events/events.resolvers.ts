// Events subgraph resolvers: App.functions, Function.invocations, the `events` list and the
// function and subscription mutations, calling the same services as the REST routes.
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { toConnection, type PageArgs } from '../core/graphql/context.js';
import {
  createFunction,
  deleteFunction,
  listFunctions,
  updateFunction,
  type FunctionRow,
  type FunctionView,
} from './functions/function.service.js';
import type { FunctionFields } from './functions/function-input.js';
import type { InvocationRow } from './invocations/invocation.repository.js';
import { executeFunction, listFunctionInvocations, parseExecuteBody } from './invocations/invocation.service.js';
import { listEventNames, subscribe, toSubscriptionView, unsubscribe } from './subscriptions/subscription.service.js';
import type { SubscriptionRow } from './subscriptions/subscription.repository.js';

interface GraphFunction {
  siteId: number;
  appId: number;
  [k: string]: unknown;
}

const fromRow = (f: FunctionRow): GraphFunction => ({
  siteId: f.site_id,
  appId: f.app_id,
  id: f.id,
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

const fromView = (f: FunctionView, siteId: number, appId: number): GraphFunction => ({
  siteId,
  appId,
  id: f.id,
  name: f.name,
  slug: f.slug,
  description: f.description,
  executionMode: f.execution_mode,
  code: f.code,
  webhookUrl: f.webhook_url,
  headers: f.headers,
  systemFunction: f.system_function,
  timeoutSeconds: f.timeout_seconds,
  filterConditions: f.filter_conditions,
  isActive: f.is_active,
  isPublic: f.is_public,
  createdAt: f.created_at,
  updatedAt: f.updated_at,
});

const toGraphInvocation = (i: InvocationRow) => ({
  id: i.id,
  function: i.function_id,
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

interface InvocationArgs extends PageArgs {
  status?: string | null;
  triggerType?: string | null;
}

function subscriptionOut(s: SubscriptionRow) {
  const v = toSubscriptionView(s);
  return {
    id: v.id,
    event: v.event,
    function: v.function,
    functionName: v.function_name,
    functionSlug: v.function_slug,
    appName: v.app_name,
    appSlug: v.app_slug,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}

export const eventsResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  App: {
    functions: (app: { id: string }, args: PageArgs, { ctx }) =>
      listFunctions(ctx, app.id, { page: args.page, pageSize: args.pageSize }).then((r) => toConnection(r, fromRow)),
  },
  Function: {
    invocations: (fn: GraphFunction, args: InvocationArgs, { ctx }) =>
      listFunctionInvocations(
        ctx,
        { id: Number(fn.id), siteId: fn.siteId, appId: fn.appId },
        { page: args.page, pageSize: args.pageSize, status: args.status, triggerType: args.triggerType },
      ).then((r) => toConnection(r, toGraphInvocation)),
  },
  Query: {
    events: (_: unknown, __: unknown, { ctx }) => listEventNames(ctx),
  },
  Mutation: {
    createFunction: async (_: unknown, args: { app: string; input: FunctionFields }, { ctx }) => {
      const { view, siteId, appId } = await createFunction(ctx, args.app, args.input).then((v) => ({
        view: v,
        siteId: v.site_id,
        appId: v.app_id,
      }));
      return { function: fromView(view, siteId, appId), webhookSecret: view.webhook_secret ?? null };
    },
    updateFunction: async (_: unknown, args: { app: string; slug: string; input: FunctionFields }, { ctx }) => {
      const v = await updateFunction(ctx, args.app, args.slug, args.input, true);
      return fromView(v, v.site_id, v.app_id);
    },
    deleteFunction: async (_: unknown, args: { app: string; slug: string }, { ctx }) => {
      const v = await deleteFunction(ctx, args.app, args.slug);
      return fromView(v, v.site_id, v.app_id);
    },
    executeFunction: async (_: unknown, args: { app: string; slug: string; params?: unknown; async?: boolean | null }, { ctx }) => {
      const r = await executeFunction(
        ctx,
        args.app,
        args.slug,
        parseExecuteBody({ params: args.params ?? {}, async: args.async ?? false }),
      );
      if (r.async)
        return {
          success: null,
          result: null,
          logs: null,
          error: null,
          status: 'pending',
          taskId: r.task_id,
          invocationId: r.invocation_id,
        };
      return {
        success: r.success,
        result: r.result,
        logs: r.logs,
        error: r.error,
        status: r.status,
        taskId: r.task_id,
        invocationId: r.invocation_id,
      };
    },
    subscribeFunction: async (_: unknown, args: { event: string; functionId: number; filterConditions?: string | null }, { ctx }) =>
      subscriptionOut(
        await subscribe(ctx, args.event, { functionId: args.functionId, filterConditions: args.filterConditions ?? undefined }),
      ),
    unsubscribeFunction: async (_: unknown, args: { event: string; functionId: number }, { ctx }) =>
      subscriptionOut(await unsubscribe(ctx, args.event, { functionId: args.functionId })),
  },
};
