// Events subgraph resolvers: App.functions, App.eventSubscribers, Function.invocations, the
// `events`, `invocations` and `invocation` queries and the function and subscription mutations,
// calling the same services as the REST routes and mapping their domain objects to the types.
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { errors, isAppError } from '../core/errors.js';
import type { ResolverMap } from '../core/graphql/resolvers.js';
import { toConnection, type PageArgs } from '../core/graphql/context.js';
import { pageRequest } from '../core/listing.js';
import { createFunction, deleteFunction, listFunctions, updateFunction, type EventFunction } from './functions/function.service.js';
import type { FunctionFields } from './functions/function-input.js';
import {
  executeFunction,
  getInvocation,
  getResult,
  listFunctionInvocations,
  listInvocations,
  parseExecuteBody,
  type Invocation,
} from './invocations/invocation.service.js';
import { appEventSubscribers, listEventNames, subscribe, unsubscribe, type Subscription } from './subscriptions/subscription.service.js';

/** A function as the `Function` type; siteId and appId stay for `Function.invocations` (not schema fields). */
const toGraphFunction = (f: EventFunction) => ({
  siteId: f.siteId,
  appId: f.appId,
  id: f.id,
  name: f.name,
  slug: f.slug,
  description: f.description,
  executionMode: f.executionMode,
  code: f.code,
  webhookUrl: f.webhookUrl,
  headers: f.headers,
  systemFunction: f.systemFunction,
  timeoutSeconds: f.timeoutSeconds,
  filterConditions: f.filterConditions,
  isActive: f.isActive,
  isPublic: f.isPublic,
  createdAt: f.createdAt,
  updatedAt: f.updatedAt,
});

type GraphFunction = ReturnType<typeof toGraphFunction>;

const toGraphInvocation = (i: Invocation) => ({
  id: i.id,
  function: i.functionId,
  functionName: i.functionName,
  functionSlug: i.functionSlug,
  appSlug: i.appSlug,
  triggerType: i.triggerType,
  event: i.event,
  status: i.status,
  taskId: i.taskId,
  idempotencyKey: i.idempotencyKey,
  params: i.params,
  result: i.result,
  error: i.error,
  logs: i.logs,
  attempts: i.attempts,
  maxAttempts: i.maxAttempts,
  deliveries: i.deliveries,
  deadLetter: i.deadLetter,
  startedAt: i.startedAt,
  finishedAt: i.finishedAt,
  durationMs: i.durationMs,
  createdAt: i.createdAt,
});

const toGraphSubscription = (s: Subscription) => ({
  id: s.id,
  event: s.event,
  function: s.functionId,
  functionName: s.functionName,
  functionSlug: s.functionSlug,
  filterConditions: s.filterConditions,
  appName: s.appName,
  appSlug: s.appSlug,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

interface InvocationArgs extends PageArgs {
  status?: string | null;
  triggerType?: string | null;
}

export const eventsResolvers: ResolverMap = {
  DateTime: DateTimeResolver,
  JSON: JSONResolver,
  App: {
    functions: (app: { id: string }, args: PageArgs, { ctx }) =>
      listFunctions(ctx, app.id, { page: args.page, pageSize: args.pageSize }).then((r) => toConnection(r, toGraphFunction)),
    // The service answers every subscriber (as REST); the connection pages them.
    eventSubscribers: async (app: { id: string }, args: PageArgs & { event: string }, { ctx }) => {
      const { subscribers } = await appEventSubscribers(ctx, app.id, args.event);
      const page = pageRequest({ page: args.page, pageSize: args.pageSize });
      const items = subscribers.slice(page.offset, page.offset + page.pageSize);
      return toConnection({ page, count: subscribers.length, items }, toGraphSubscription);
    },
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
    invocations: (_: unknown, args: InvocationArgs & { function?: number | null }, { ctx }) =>
      listInvocations(ctx, {
        page: args.page,
        pageSize: args.pageSize,
        status: args.status,
        triggerType: args.triggerType,
        functionId: args.function,
      }).then((r) => toConnection(r, toGraphInvocation)),
    invocation: async (_: unknown, args: { id?: number | null; taskId?: string | null }, { ctx }) => {
      if ((args.id == null) === (args.taskId == null)) throw errors.invalid('Give either id or taskId.');
      try {
        return toGraphInvocation(args.id != null ? await getInvocation(ctx, String(args.id)) : await getResult(ctx, args.taskId!));
      } catch (e) {
        if (isAppError(e) && e.status === 404) return null;
        throw e;
      }
    },
  },
  Mutation: {
    createFunction: async (_: unknown, args: { app: string; input: FunctionFields }, { ctx }) => {
      const saved = await createFunction(ctx, args.app, args.input);
      return { function: toGraphFunction(saved.function), webhookSecret: saved.webhookSecret };
    },
    updateFunction: async (_: unknown, args: { app: string; slug: string; input: FunctionFields }, { ctx }) =>
      toGraphFunction((await updateFunction(ctx, args.app, args.slug, args.input, true)).function),
    deleteFunction: async (_: unknown, args: { app: string; slug: string }, { ctx }) =>
      toGraphFunction(await deleteFunction(ctx, args.app, args.slug)),
    executeFunction: async (_: unknown, args: { app: string; slug: string; params?: unknown; async?: boolean | null }, { ctx }) => {
      const r = await executeFunction(
        ctx,
        args.app,
        args.slug,
        parseExecuteBody({ params: args.params ?? {}, async: args.async ?? false }),
      );
      if (r.async)
        return { success: null, result: null, logs: null, error: null, status: 'pending', taskId: r.taskId, invocationId: r.invocationId };
      return {
        success: r.success,
        result: r.result,
        logs: r.logs,
        error: r.error,
        status: r.status,
        taskId: r.taskId,
        invocationId: r.invocationId,
      };
    },
    subscribeFunction: async (_: unknown, args: { event: string; functionId: number; filterConditions?: string | null }, { ctx }) =>
      toGraphSubscription(
        await subscribe(ctx, args.event, { functionId: args.functionId, filterConditions: args.filterConditions ?? undefined }),
      ),
    unsubscribeFunction: async (_: unknown, args: { event: string; functionId: number }, { ctx }) =>
      toGraphSubscription(await unsubscribe(ctx, args.event, { functionId: args.functionId })),
  },
};
