// The seven platform events (DECISIONS §7). Names are matched exactly, case included.
export const EVENT_NAMES = [
  'PRE_USER_CREATE',
  'POST_USER_CREATE',
  'POST_USER_UPDATE',
  'POST_USER_DELETE',
  'RECORD_CREATE',
  'RECORD_UPDATE',
  'RECORD_DELETE',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

export const isEventName = (name: string): name is EventName => (EVENT_NAMES as readonly string[]).includes(name);

/** Blocking events: the operation waits for every subscriber and aborts on the first failure. */
export const isPreEvent = (name: EventName): boolean => name.startsWith('PRE_');
