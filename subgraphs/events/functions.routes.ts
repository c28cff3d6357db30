// REST routes of functions, their execution and invocations (DECISIONS §7). Adapters only.
import { listInputFromQuery, toPage } from '../core/listing.js';
import { RestResult, type RouteSpec } from '../core/rest.js';
import {
  createFunction,
  deleteFunction,
  getFunction,
  listFunctions,
  updateFunction,
  type SavedFunction,
} from './functions/function.service.js';
import { functionFieldsFromBody } from './functions/function-input.js';
import {
  executeFunction,
  getInvocation,
  getResult,
  invocationListFromQuery,
  listInvocations,
  parseExecuteBody,
} from './invocations/invocation.service.js';
import { toExecuteRest, toFunctionRest, toInvocationRest, toResultRest } from './events-views.js';

function route(spec: Omit<RouteSpec, 'auth' | 'module' | 'scope'>): RouteSpec {
  return { auth: 'required', module: 'events', scope: 'site', ...spec };
}

const savedRest = (s: SavedFunction) => toFunctionRest(s.function, s.webhookSecret);

const FNS = '/apps/:app/functions/';
const FN = FNS + ':slug/';

export const functionRoutes: RouteSpec[] = [
  route({
    method: 'GET',
    path: FNS,
    permission: 'functions:read',
    summary: 'Functions of an app (paginated)',
    handler: async (ctx, i) => {
      const { page, count, items } = await listFunctions(ctx, i.params.app, listInputFromQuery(i.query));
      return toPage(
        ctx.baseUrl + i.url,
        page,
        count,
        items.map((f) => toFunctionRest(f)),
      );
    },
  }),
  route({
    method: 'POST',
    path: FNS,
    permission: 'functions:write',
    status: 201,
    summary: 'Create a function (a proxy function answers its webhook_secret once)',
    handler: async (ctx, i) => savedRest(await createFunction(ctx, i.params.app, functionFieldsFromBody(i.body))),
  }),
  route({
    method: 'GET',
    path: FN,
    permission: 'functions:read',
    summary: 'One function',
    handler: async (ctx, i) => toFunctionRest(await getFunction(ctx, i.params.app, i.params.slug)),
  }),
  route({
    method: 'PUT',
    path: FN,
    permission: 'functions:write',
    summary: 'Replace a function',
    handler: async (ctx, i) => savedRest(await updateFunction(ctx, i.params.app, i.params.slug, functionFieldsFromBody(i.body), false)),
  }),
  route({
    method: 'PATCH',
    path: FN,
    permission: 'functions:write',
    summary: 'Update a function',
    handler: async (ctx, i) => savedRest(await updateFunction(ctx, i.params.app, i.params.slug, functionFieldsFromBody(i.body), true)),
  }),
  route({
    method: 'DELETE',
    path: FN,
    permission: 'functions:write',
    status: 204,
    summary: 'Delete a function (its subscriptions and invocations go with it)',
    handler: async (ctx, i) => {
      await deleteFunction(ctx, i.params.app, i.params.slug);
      return new RestResult(204, undefined);
    },
  }),
  route({
    method: 'POST',
    path: FN + 'execute/',
    permission: 'functions:execute',
    status: 200,
    summary: 'Run a function {params, async}: sync {success, result, logs}; async 202 {task_id, invocation_id}',
    handler: async (ctx, i) => {
      const r = await executeFunction(ctx, i.params.app, i.params.slug, parseExecuteBody(i.body));
      return r.async ? new RestResult(202, toExecuteRest(r)) : toExecuteRest(r);
    },
  }),
  route({
    method: 'GET',
    path: '/invocations/',
    permission: 'functions:read',
    summary: 'Invocations of this site (filters status, function, trigger_type)',
    handler: async (ctx, i) => {
      const { page, count, items } = await listInvocations(ctx, invocationListFromQuery(i.query));
      return toPage(ctx.baseUrl + i.url, page, count, items.map(toInvocationRest));
    },
  }),
  route({
    method: 'GET',
    path: '/invocations/:id/',
    permission: 'functions:read',
    summary: 'One invocation',
    handler: async (ctx, i) => toInvocationRest(await getInvocation(ctx, i.params.id)),
  }),
  route({
    method: 'GET',
    path: '/result/:task_id/',
    permission: 'functions:read',
    summary: 'The result of an asynchronous run by task id',
    handler: async (ctx, i) => toResultRest(await getResult(ctx, i.params.task_id)),
  }),
];
