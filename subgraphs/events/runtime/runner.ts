// Runs one function once, whatever its mode, and reports the outcome; never throws.
import type { Platform } from '../../core/context.js';
import type { FunctionRow } from '../functions/function.repository.js';
import { failed, type RunOutcome } from './outcome.js';
import { runInSandbox } from './sandbox.js';
import { SYSTEM_FUNCTIONS } from './system-functions.js';
import { callWebhook } from './webhook.js';

export interface RunRequest {
  fn: FunctionRow;
  params: unknown;
  /** The caller (API runs) or null (events); the API's user view, never a password. */
  user: unknown;
  /** Wall-clock bound, ms; at most the function's own time-out. */
  timeoutMs?: number;
}

export async function runFunction(platform: Platform, req: RunRequest): Promise<RunOutcome> {
  const { fn } = req;
  const timeoutMs = Math.min(req.timeoutMs ?? Infinity, fn.timeout_seconds * 1000);
  try {
    switch (fn.execution_mode) {
      case 'app':
        return await runInSandbox({
          key: `${fn.id}:${fn.updated_at.getTime()}`,
          code: fn.code,
          params: req.params,
          user: req.user,
          timeoutMs,
        });
      case 'proxy':
        if (!fn.webhook_url || !fn.webhook_secret) return failed('The function has no webhook URL.');
        return await callWebhook({
          url: fn.webhook_url,
          headers: fn.headers ?? {},
          secret: fn.webhook_secret,
          payload: req.params,
          timeoutMs,
          allowHosts: platform.config.events.webhookAllowHosts,
        });
      case 'system': {
        const impl = fn.system_name ? SYSTEM_FUNCTIONS.get(fn.system_name) : undefined;
        if (!impl) return failed(`Unknown system function "${fn.system_name}".`);
        return await impl({ platform, params: req.params, user: req.user, timeoutMs });
      }
      default:
        return failed(`Unknown execution mode "${String(fn.execution_mode)}".`);
    }
  } catch (e) {
    platform.log.error({ err: (e as Error).message, function_id: fn.id }, 'function run failed unexpectedly');
    return failed('The function could not be run.');
  }
}
