// The events module's error factories and REST envelope (seed 3 "Events" responses):
// `{status: "error", code, message}` with the code in upper case (`NOT_FOUND`,
// `EXECUTION_ERROR`), plus `data` or field `errors` where a case carries them.
import { AppError, errors, type FieldErrors } from '../core/errors.js';
import { EVENT_NAMES } from './event-names.js';

export function renderEventsError(err: AppError): Record<string, unknown> {
  const body: Record<string, unknown> = { status: 'error', code: err.code.toUpperCase(), message: err.message };
  if (err.errors) body.errors = err.errors;
  if (err.details?.data) body.data = err.details.data;
  return body;
}

export const eventsErrors = {
  unknownEvent: (name: string) =>
    errors.invalid(`Invalid event type "${name}". Valid events: ${EVENT_NAMES.join(', ')}.`, { event: [`Unknown event "${name}".`] }),
  functionMissing: (id: unknown) =>
    errors.invalid(`Function ${JSON.stringify(id)} does not exist.`, { function_id: ['Function does not exist.'] }),
  alreadySubscribed: (fn: string, event: string) =>
    errors.invalid(`Function "${fn}" is already subscribed to ${event}.`, { function_id: ['Already subscribed.'] }),
  notSubscribed: (fn: string, event: string) => errors.notFound(`Function "${fn}" was not subscribed to ${event}.`),
  functionNotFound: () => errors.notFound('Function not found.'),
  invocationNotFound: () => errors.notFound('Invocation not found.'),
  invalid: (message: string, fields?: FieldErrors) => errors.invalid(message, fields),
  /** A function run failed on a synchronous path (seed 3 "failure shape"). */
  execution: (message: string, data: Record<string, unknown>) =>
    new AppError({ code: 'execution_error', status: 400, message, details: { data } }),
  /** A PRE event subscriber refused or failed: the operation is aborted (DECISIONS §7). */
  preEventRejected: (message: string, data: Record<string, unknown>) =>
    new AppError({ code: 'pre_event_rejected', status: 400, message, details: { data } }),
};
