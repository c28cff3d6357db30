// Query templates (seed 2 "Template rules", DECISIONS §10): the text is parsed once into
// literal text and placeholders. A placeholder never reaches the engine as text: the
// compiler puts the engine's parameter marker in its place (`$n`, `?`) and the value travels
// separately, bound by the driver.
import { analyticsErrors } from '../analytics-errors.js';

export const TEMPLATE_LIMITS = { maxChars: 100_000, maxPlaceholders: 200 };

/** The fields of the current user a template may read (`{{ secret.user_profile.<field> }}`). */
export const USER_PROFILE_FIELDS = ['id', 'username', 'email', 'first_name', 'last_name', 'is_staff', 'is_superuser'] as const;
export type UserProfileField = (typeof USER_PROFILE_FIELDS)[number];

export type Placeholder =
  { kind: 'param'; name: string } | { kind: 'secret'; key: string; field: string | null } | { kind: 'user'; field: UserProfileField };

export interface TemplatePart {
  /** Literal text before the placeholder (or the trailing text when `placeholder` is null). */
  text: string;
  placeholder: Placeholder | null;
  /** Offset of the placeholder's `{{` in the template (characters). */
  at: number;
  /** Offset just after its `}}`. */
  end: number;
}

export interface ParsedTemplate {
  parts: TemplatePart[];
  /** Distinct placeholders, in order of first use; the compilers number parameters by this index. */
  placeholders: Placeholder[];
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const SECRET_RE = /^secret\.([A-Za-z0-9_-]{1,200})(?:\.([A-Za-z0-9_-]{1,200}))?$/;

const invalid = (message: string) => analyticsErrors.validation({ query_text: [message] });

export const placeholderId = (p: Placeholder): string =>
  p.kind === 'param' ? p.name : p.kind === 'user' ? `secret.user_profile.${p.field}` : `secret.${p.key}${p.field ? `.${p.field}` : ''}`;

function parsePlaceholder(inner: string, at: number): Placeholder {
  const body = inner.trim();
  const secret = SECRET_RE.exec(body);
  if (secret) {
    if (secret[1] === 'user_profile') {
      const field = secret[2] as UserProfileField | undefined;
      if (!field || !USER_PROFILE_FIELDS.includes(field)) {
        throw invalid(`Placeholder at position ${at}: secret.user_profile.<field> takes one of ${USER_PROFILE_FIELDS.join(', ')}.`);
      }
      return { kind: 'user', field };
    }
    return { kind: 'secret', key: secret[1], field: secret[2] ?? null };
  }
  if (NAME_RE.test(body)) return { kind: 'param', name: body };
  throw invalid(
    `Placeholder at position ${at} is not a parameter name or a secret reference: use {{ name }} or {{ secret.<key>[.<field>] }}.`,
  );
}

/** Splits a template into text and placeholders; QueryValidationError naming the position otherwise. */
export function parseTemplate(text: string): ParsedTemplate {
  if (text.length > TEMPLATE_LIMITS.maxChars) throw invalid(`The query is longer than ${TEMPLATE_LIMITS.maxChars} characters.`);
  const parts: TemplatePart[] = [];
  const seen = new Map<string, Placeholder>();
  let pos = 0;
  let count = 0;
  for (;;) {
    const open = text.indexOf('{{', pos);
    if (open < 0) break;
    const close = text.indexOf('}}', open + 2);
    if (close < 0) throw invalid(`Unclosed placeholder "{{" at position ${open}.`);
    const inner = text.slice(open + 2, close);
    if (inner.includes('{{')) throw invalid(`Unclosed placeholder "{{" at position ${open}.`);
    const p = parsePlaceholder(inner, open);
    if (++count > TEMPLATE_LIMITS.maxPlaceholders) throw invalid(`More than ${TEMPLATE_LIMITS.maxPlaceholders} placeholders.`);
    const id = placeholderId(p);
    const shared = seen.get(id) ?? p;
    seen.set(id, shared);
    parts.push({ text: text.slice(pos, open), placeholder: shared, at: open, end: close + 2 });
    pos = close + 2;
  }
  parts.push({ text: text.slice(pos), placeholder: null, at: text.length, end: text.length });
  return { parts, placeholders: [...seen.values()] };
}

/** A template compiled for a SQL engine: the text with the engine's markers, and which placeholder each marker binds. */
export interface CompiledSql {
  text: string;
  /** Placeholder index (into ParsedTemplate.placeholders) of each bound value, in order. */
  slots: number[];
  /** Maps an offset of `text` back to the template, for error positions. */
  toTemplateOffset(offset: number): number;
}

export type MarkerStyle = 'dollar' | 'question';

/**
 * Replaces each placeholder with the engine's marker: `$n` (PostgreSQL, Redshift; a repeated
 * placeholder reuses its number) or `?` (MySQL/MariaDB, one value per marker). A placeholder
 * written inside quotes would become literal text, so quoting one is refused.
 */
export function compileSql(t: ParsedTemplate, style: MarkerStyle): CompiledSql {
  let text = '';
  const slots: number[] = [];
  const segments: { compiled: number; template: number }[] = [];
  let templatePos = 0;
  for (const part of t.parts) {
    segments.push({ compiled: text.length, template: templatePos });
    text += part.text;
    if (!part.placeholder) break;
    const before = part.text.at(-1);
    if (before === "'" || before === '"' || before === '`') {
      throw invalid(`Placeholder at position ${part.at} is quoted: placeholders are bound values, write them without quotes.`);
    }
    const index = t.placeholders.indexOf(part.placeholder);
    segments.push({ compiled: text.length, template: part.at });
    if (style === 'dollar') {
      // A space keeps `$1` from running into a following digit or identifier.
      text += ` $${index + 1} `;
    } else {
      text += ' ? ';
      slots.push(index);
    }
    templatePos = part.end;
  }
  if (style === 'dollar') for (let i = 0; i < t.placeholders.length; i++) slots.push(i);
  return {
    text,
    slots,
    toTemplateOffset(offset: number) {
      let best = segments[0] ?? { compiled: 0, template: 0 };
      for (const s of segments) if (s.compiled <= offset) best = s;
      return best.template + Math.max(0, offset - best.compiled);
    },
  };
}
