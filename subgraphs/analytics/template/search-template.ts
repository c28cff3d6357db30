// Search-engine templates: a JSON DSL document in which each placeholder is a whole JSON value
// (`"{{ name }}"` or a bare `{{ name }}`). The document is parsed once with sentinels in place
// of the placeholders; values are put into the parsed tree, so they are JSON data and never
// DSL text. `script`, `runtime_mappings` and the like are refused anywhere in it.
import { analyticsErrors } from '../analytics-errors.js';
import { BLOCKED_SEARCH_KEYS } from './blocked.js';
import type { ParsedTemplate } from './template.js';

const SENTINEL = '\u0000placeholder:';
const MAX_DEPTH = 32;

const refuse = (message: string) => analyticsErrors.validation({ query_text: [message] });

/** The JSON text with sentinel strings for the placeholders; checked (blocked keys, shape). */
export function compileSearch(t: ParsedTemplate): string {
  let text = '';
  let prevQuoted = false;
  for (const part of t.parts) {
    text += prevQuoted ? part.text.slice(1) : part.text;
    if (!part.placeholder) break;
    const index = t.parts.indexOf(part);
    const next = t.parts[index + 1]?.text ?? '';
    prevQuoted = text.endsWith('"');
    if (prevQuoted && !next.startsWith('"')) throw refuse(`Placeholder at position ${part.at} must be a whole JSON value.`);
    if (prevQuoted) text = text.slice(0, -1);
    text += JSON.stringify(SENTINEL + t.placeholders.indexOf(part.placeholder));
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw refuse(`The search body is not valid JSON: ${String((e as Error).message).slice(0, 200)}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw refuse('The search body must be a JSON object.');
  checkKeys(doc, 0);
  return text;
}

function checkKeys(v: unknown, depth: number): void {
  if (depth > MAX_DEPTH) throw refuse(`The search body is nested deeper than ${MAX_DEPTH} levels.`);
  if (Array.isArray(v)) v.forEach((x) => checkKeys(x, depth + 1));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (BLOCKED_SEARCH_KEYS.has(k)) throw refuse(`"${k}" is blocked in search queries.`);
      checkKeys(x, depth + 1);
    }
  }
}

/** The search body with the values in place of the sentinels. */
export function bindSearch(text: string, values: unknown[]): Record<string, unknown> {
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string' && v.startsWith(SENTINEL)) return values[Number(v.slice(SENTINEL.length))] ?? null;
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(JSON.parse(text)) as Record<string, unknown>;
}
