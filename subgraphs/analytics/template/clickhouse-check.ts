// ClickHouse templates: no grammar of ClickHouse is available to Node, so a token walk
// (strings, quoted identifiers and comments skipped) refuses anything but one SELECT/WITH
// query, the blocked statements anywhere, and the seed's blocked functions wherever one is
// called. Values are literals made by `clickhouseLiteral` (ClickHouse 18.16, the server
// available here, has no query parameters), placed at the markers the walk found.
import { analyticsErrors } from '../analytics-errors.js';
import { BLOCKED_CLICKHOUSE_FUNCTIONS, BLOCKED_STATEMENTS } from './blocked.js';
import type { CompiledSql } from './template.js';

interface Token {
  kind: 'word' | 'marker' | 'punct' | 'literal';
  text: string;
  at: number;
}

const BLOCKED_WORDS = new Set([
  ...BLOCKED_STATEMENTS,
  'SYSTEM',
  'KILL',
  'OPTIMIZE',
  'ATTACH',
  'DETACH',
  'RENAME',
  'EXCHANGE',
  'SETTINGS',
  'OUTFILE',
  'FORMAT',
  'SET',
  'USE',
]);

const refuse = (c: CompiledSql, message: string, at?: number) =>
  analyticsErrors.validation({ query_text: [at === undefined ? message : `${message} (position ${c.toTemplateOffset(at)})`] });

function tokenize(c: CompiledSql): Token[] {
  const s = c.text;
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const ch = s[i];
    if (/\s/.test(ch)) {
      i++;
    } else if (s.startsWith('--', i)) {
      const e = s.indexOf('\n', i);
      i = e < 0 ? s.length : e + 1;
    } else if (s.startsWith('/*', i)) {
      const e = s.indexOf('*/', i + 2);
      if (e < 0) throw refuse(c, 'Unclosed comment.', i);
      i = e + 2;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      for (;;) {
        if (j >= s.length) throw refuse(c, 'Unclosed quote.', i);
        if (s[j] === '\\') j += 2;
        else if (s[j] === ch && s[j + 1] === ch) j += 2;
        else if (s[j] === ch) break;
        else j++;
      }
      out.push({ kind: ch === "'" ? 'literal' : 'word', text: ch === "'" ? s.slice(i, j + 1) : s.slice(i + 1, j), at: i });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(ch)) {
      let j = i + 1;
      while (j < s.length && /[A-Za-z0-9_]/.test(s[j])) j++;
      out.push({ kind: 'word', text: s.slice(i, j), at: i });
      i = j;
    } else if (/[0-9]/.test(ch)) {
      let j = i + 1;
      while (j < s.length && /[0-9A-Za-z_.]/.test(s[j])) j++;
      out.push({ kind: 'literal', text: s.slice(i, j), at: i });
      i = j;
    } else {
      out.push({ kind: ch === '?' ? 'marker' : 'punct', text: ch, at: i });
      i++;
    }
  }
  return out;
}

/** Checks the compiled text; returns the offsets of its `?` markers, one per bound value. */
export function checkClickhouse(c: CompiledSql): number[] {
  const tokens = tokenize(c);
  const first = tokens.find((t) => t.text !== '(');
  if (!first || first.kind !== 'word' || !['SELECT', 'WITH'].includes(first.text.toUpperCase())) {
    throw refuse(c, 'Only SELECT queries are allowed.', first?.at);
  }
  const markers: number[] = [];
  tokens.forEach((t, i) => {
    if (t.text === ';') throw refuse(c, 'Exactly one statement is allowed (no ";").', t.at);
    if (t.kind === 'marker') markers.push(t.at);
    if (t.kind !== 'word') return;
    const called = tokens[i + 1]?.text === '(';
    if (called && BLOCKED_CLICKHOUSE_FUNCTIONS.has(t.text.toLowerCase())) throw refuse(c, `Function ${t.text} is blocked.`, t.at);
    if (!called && c.text[t.at] !== '`' && c.text[t.at] !== '"' && BLOCKED_WORDS.has(t.text.toUpperCase())) {
      throw refuse(c, `${t.text.toUpperCase()} is blocked.`, t.at);
    }
  });
  if (markers.length !== c.slots.length) throw refuse(c, '"?" is only allowed inside strings; use {{ name }} for values.');
  return markers;
}

/**
 * A value as a ClickHouse literal: strings quoted with `\` and `'` escaped (and NUL as \0),
 * safe integers in parentheses, other finite numbers as toFloat64('…'), booleans 1/0, null NULL, arrays as arrays, objects as their
 * JSON text in a string.
 */
export function clickhouseLiteral(v: unknown, depth = 0): string {
  if (depth > 16) throw analyticsErrors.validation({ params: ['Nested too deeply.'] });
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw analyticsErrors.validation({ params: ['Numbers must be finite.'] });
    // Safe integers as they are; any other number through a string (ClickHouse 18's literal
    // parser refuses some long mantissas with exponents).
    if (Number.isSafeInteger(v)) return `(${Object.is(v, -0) ? '0' : String(v)})`;
    return `toFloat64('${String(v)}')`;
  }
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\0/g, '\\0')}'`;
  if (Array.isArray(v)) return `[${v.map((x) => clickhouseLiteral(x, depth + 1)).join(', ')}]`;
  return clickhouseLiteral(JSON.stringify(v), depth + 1);
}

/** The text with each marker replaced by the literal of its value (markers in ascending order). */
export function spliceLiterals(text: string, markers: number[], values: unknown[]): string {
  let out = '';
  let pos = 0;
  markers.forEach((at, i) => {
    out += text.slice(pos, at) + clickhouseLiteral(values[i]);
    pos = at + 1;
  });
  return out + text.slice(pos);
}
