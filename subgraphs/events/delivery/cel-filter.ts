// `filter_conditions`: a CEL expression over `event` (the event payload), for example
// `event.datatable == "orders" && event.data.total > 100`, with @marcbachmann/cel-js. An
// expression is parsed once and kept (bounded cache keyed by its text); an event passes only
// when the expression evaluates to exactly `true`. An evaluation error (a missing key, a type
// mismatch) means "skip", never a failed delivery.
import { parse } from '@marcbachmann/cel-js';

type Program = (vars: Record<string, unknown>) => unknown;

const programs = new Map<string, Program>();
const MAX_PROGRAMS = 2000;

/** Parses `expr`; `error` says why it is not valid CEL. */
export function compileFilter(expr: string): { program: Program | null; error: string | null } {
  const cached = programs.get(expr);
  if (cached) return { program: cached, error: null };
  try {
    const program = parse(expr) as unknown as Program;
    if (programs.size >= MAX_PROGRAMS) programs.delete(programs.keys().next().value as string);
    programs.set(expr, program);
    return { program, error: null };
  } catch (e) {
    const first = String((e as Error).message ?? e).split('\n')[0];
    return { program: null, error: first.slice(0, 300) };
  }
}

/** Whether `event` passes `expr` (no expression: every event passes). */
export function passesFilter(expr: string | null, event: unknown): boolean {
  if (!expr) return true;
  const { program } = compileFilter(expr);
  if (!program) return false;
  try {
    return program({ event }) === true;
  } catch {
    return false;
  }
}
