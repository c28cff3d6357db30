// The REST views of the events module (seed 3 "Events", DECISIONS §7): the seed's snake_case
// shapes rendered from the services' domain objects. GraphQL maps the same objects in
// events.resolvers.ts.
import type { EventFunction } from './functions/function.service.js';
import type { ExecuteResult, Invocation } from './invocations/invocation.service.js';
import type { AppEventSubscribers, Subscription } from './subscriptions/subscription.service.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A function; `webhook_secret` only in the answer that generated it. */
export const toFunctionRest = (f: EventFunction, webhookSecret?: string | null) => ({
  id: f.id,
  name: f.name,
  slug: f.slug,
  description: f.description,
  execution_mode: f.executionMode,
  code: f.code,
  webhook_url: f.webhookUrl,
  headers: f.headers,
  system_function: f.systemFunction,
  timeout_seconds: f.timeoutSeconds,
  filter_conditions: f.filterConditions,
  is_active: f.isActive,
  is_public: f.isPublic,
  app: { id: f.app.uuid, slug: f.app.slug, name: f.app.name },
  created_at: f.createdAt.toISOString(),
  updated_at: f.updatedAt.toISOString(),
  ...(webhookSecret ? { webhook_secret: webhookSecret } : {}),
});

/** A run at once `{success, result, logs, error, status, invocation_id, task_id}`; a queued run `{task_id, invocation_id}`. */
export const toExecuteRest = (r: ExecuteResult) =>
  r.async
    ? { task_id: r.taskId, invocation_id: r.invocationId }
    : {
        success: r.success,
        result: r.result,
        logs: r.logs,
        error: r.error,
        status: r.status,
        invocation_id: r.invocationId,
        task_id: r.taskId,
      };

export const toInvocationRest = (i: Invocation) => ({
  id: i.id,
  function: i.functionId,
  function_name: i.functionName,
  function_slug: i.functionSlug,
  app_slug: i.appSlug,
  trigger_type: i.triggerType,
  event: i.event,
  status: i.status,
  task_id: i.taskId,
  idempotency_key: i.idempotencyKey,
  params: i.params,
  result: i.result,
  error: i.error,
  logs: i.logs,
  attempts: i.attempts,
  max_attempts: i.maxAttempts,
  deliveries: i.deliveries,
  dead_letter: i.deadLetter,
  started_at: iso(i.startedAt),
  finished_at: iso(i.finishedAt),
  duration_ms: i.durationMs,
  created_at: iso(i.createdAt),
});

/** `GET /api/result/{task_id}/`: where an asynchronous run stands. */
export const toResultRest = (i: Invocation) => ({
  task_id: i.taskId,
  invocation_id: i.id,
  status: i.status,
  ready: ['succeeded', 'failed', 'timed_out'].includes(i.status),
  success: i.status === 'succeeded',
  result: i.result,
  error: i.error,
  logs: i.logs,
});

/** A subscription as subscribe answers it. */
export const toSubscriptionRest = (s: Subscription) => ({
  id: s.id,
  event: s.event,
  function: s.functionId,
  function_name: s.functionName,
  function_slug: s.functionSlug,
  app_name: s.appName,
  app_slug: s.appSlug,
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
});

/** One subscriber in `GET /api/apps/{app}/events/{event}/`. */
export const toSubscriberRest = (s: Subscription) => ({
  subscriber_id: s.id,
  event: s.event,
  function_id: s.functionId,
  function_name: s.functionName,
  function_slug: s.functionSlug,
  filter_conditions: s.filterConditions,
  app_id: s.appId,
  app_name: s.appName,
  app_slug: s.appSlug,
  created_at: s.createdAt.toISOString(),
});

/** The data of `GET /api/apps/{app}/events/{event}/`. */
export const toAppEventSubscribersRest = (r: AppEventSubscribers) => ({
  event: r.event,
  app: { id: r.app.id, name: r.app.name, slug: r.app.slug },
  total_subscribers: r.subscribers.length,
  subscribers: r.subscribers.map(toSubscriberRest),
});
