// Validation of user, profile and group bodies. Every problem is collected per field so one
// 400 names them all: `{detail, code: 'invalid', errors: {field: [messages]}}`.
import { errors, type FieldErrors } from '../core/errors.js';

export type Body = Record<string, unknown>;

/** The request body as an object (anything else is one 400 on `body`). */
export function asBody(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw errors.field('body', 'Expected a JSON object.');
  return body as Body;
}

/** Collects field errors; `done()` throws one 400 when any were added. */
export class Checker {
  readonly errors: FieldErrors = {};
  constructor(readonly body: Body) {}

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  has(field: string): boolean {
    return this.body[field] !== undefined;
  }

  string(
    field: string,
    opts: { required?: boolean; max: number; min?: number; pattern?: RegExp; patternMessage?: string },
  ): string | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) {
      if (opts.required) this.add(field, 'This field is required.');
      return undefined;
    }
    if (typeof v !== 'string') return void this.add(field, 'Not a valid string.');
    if (opts.required && !v.trim()) return void this.add(field, 'This field may not be blank.');
    if (opts.min !== undefined && v.length < opts.min)
      return void this.add(field, `Ensure this field has at least ${opts.min} characters.`);
    if (v.length > opts.max) return void this.add(field, `Ensure this field has no more than ${opts.max} characters.`);
    if (opts.pattern && v !== '' && !opts.pattern.test(v)) return void this.add(field, opts.patternMessage ?? 'Invalid value.');
    return v;
  }

  bool(field: string): boolean | undefined {
    const v = this.body[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') return void this.add(field, 'Must be a valid boolean.');
    return v;
  }

  done(): void {
    if (Object.keys(this.errors).length) throw errors.invalid('Invalid input.', this.errors);
  }
}

// Django's username rule: letters, digits and @ . + - _ (so an e-mail works as a username).
export const USERNAME_PATTERN = /^[\p{L}\p{N}_.@+-]+$/u;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface UserFields {
  username?: string;
  email?: string;
  password?: string;
  firstName?: string;
  lastName?: string;
  isStaff?: boolean;
  isSuperuser?: boolean;
  isActive?: boolean;
}

/**
 * Fields of POST (mode 'create'), PUT ('replace': identity fields required) or PATCH ('patch').
 * `emailOptional`: a blank e-mail is allowed (the first superuser from ADMIN_* at start).
 */
export function parseUserFields(body: unknown, mode: 'create' | 'replace' | 'patch', opts: { emailOptional?: boolean } = {}): UserFields {
  const c = new Checker(asBody(body));
  const required = mode !== 'patch';
  const emailRequired = required && !opts.emailOptional;
  const out: UserFields = {
    username: c.string('username', {
      required,
      min: 1,
      max: 150,
      pattern: USERNAME_PATTERN,
      patternMessage: 'Enter a valid username: letters, digits and @ . + - _ only.',
    }),
    email: c.string('email', { required: emailRequired, max: 254, pattern: EMAIL_PATTERN, patternMessage: 'Enter a valid email address.' }),
    password: c.string('password', { required: mode === 'create', min: 8, max: 128 }),
    firstName: c.string('first_name', { max: 150 }),
    lastName: c.string('last_name', { max: 150 }),
    isStaff: c.bool('is_staff'),
    isSuperuser: c.bool('is_superuser'),
    isActive: mode === 'create' ? undefined : c.bool('is_active'),
  };
  if (out.email !== undefined && out.email === '' && emailRequired) c.add('email', 'This field may not be blank.');
  c.done();
  return out;
}

export interface ProfileFields {
  bio?: string;
  avatarUrl?: string;
  phone?: string;
  timezone?: string;
  locale?: string;
  attributes?: Record<string, unknown>;
}

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function canonicalLocale(locale: string): string | null {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? null;
  } catch {
    return null;
  }
}

function validUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

const MAX_ATTRIBUTES_BYTES = 16_384;

export function parseProfileFields(body: unknown): ProfileFields {
  const c = new Checker(asBody(body));
  const out: ProfileFields = {
    bio: c.string('bio', { max: 2000 }),
    avatarUrl: c.string('avatar_url', { max: 500 }),
    phone: c.string('phone', { max: 32, pattern: /^\+?[0-9 ().-]+$/, patternMessage: 'Enter a valid phone number.' }),
    timezone: c.string('timezone', { max: 64 }),
    locale: c.string('locale', { max: 35 }),
  };
  if (out.avatarUrl && !validUrl(out.avatarUrl)) c.add('avatar_url', 'Enter a valid http(s) URL.');
  if (out.timezone !== undefined && !validTimezone(out.timezone)) c.add('timezone', `"${out.timezone}" is not a known IANA time zone.`);
  if (out.locale !== undefined) {
    const canonical = canonicalLocale(out.locale);
    if (!canonical) c.add('locale', `"${out.locale}" is not a valid BCP 47 locale.`);
    else out.locale = canonical;
  }
  const attrs = c.body.attributes;
  if (attrs !== undefined) {
    if (attrs === null || typeof attrs !== 'object' || Array.isArray(attrs)) c.add('attributes', 'Expected a JSON object.');
    else if (JSON.stringify(attrs).length > MAX_ATTRIBUTES_BYTES) c.add('attributes', `At most ${MAX_ATTRIBUTES_BYTES} bytes of JSON.`);
    else out.attributes = attrs as Record<string, unknown>;
  }
  c.done();
  return out;
}

/** A permission list: an array of catalogue codenames, unknown ones named in the 400. */
export function checkPermissions(c: Checker, known: ReadonlySet<string>, field = 'permissions'): string[] | undefined {
  const v = c.body[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return void c.add(field, 'Expected a list of permission names.');
  const unknown = v.filter((x) => !known.has(x));
  if (unknown.length) return void c.add(field, `Unknown permission(s): ${unknown.join(', ')}.`);
  return [...new Set(v as string[])];
}
