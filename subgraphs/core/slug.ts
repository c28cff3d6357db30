// Slugs: generated from a name, unique through a database constraint, with `-2`, `-3`, …
// suffixes on collision. Safe under concurrent creates: the insert is retried when the
// unique constraint on the slug rejects it.
import { isUniqueViolation } from './db.js';
import { errors } from './errors.js';

export const MAX_SLUG_LENGTH = 50;

// Letters that Unicode does not decompose into a base letter plus accents, so NFKD alone
// would turn them into separators ("Straße" → "stra-e").
const TRANSLITERATE: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
  ŧ: 't',
  ħ: 'h',
};

export function slugify(input: string, fallback = 'item'): string {
  const s = input
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[ßæœøđðþłıŧħ]/g, (c) => TRANSLITERATE[c])
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/g, '');
  // A slug shaped like a UUID could never be addressed by slug (paths read it as a UUID).
  if (isUuid(s)) return `s-${s}`;
  return s || fallback;
}

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Whether a client-supplied slug is acceptable as it is (lower-case words, not a UUID). */
export function isValidSlug(slug: string): boolean {
  return slug.length <= MAX_SLUG_LENGTH + 6 && SLUG_PATTERN.test(slug) && !isUuid(slug);
}

/** The first of `base`, `base-2`, `base-3`, … not in `taken`. */
export function nextFreeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

export interface UniqueSlugOptions<T> {
  base: string;
  /** Existing slugs equal to base or starting with `${base}-`. */
  taken: (base: string) => Promise<string[]>;
  insert: (slug: string) => Promise<T>;
  /** Whether a unique violation was on the slug (and not another column). */
  isSlugConflict?: (e: unknown) => boolean;
  attempts?: number;
}

/**
 * Inserts with the first free slug, retrying on a slug conflict. Racing creators of the same
 * base all pick the same candidate and exactly one wins each round, so N concurrent creators
 * need up to N rounds: attempts bounds that. Outside a transaction only: in PostgreSQL a unique
 * violation aborts the surrounding transaction, so a retry inside one would need a savepoint.
 */
export async function withUniqueSlug<T>(opts: UniqueSlugOptions<T>): Promise<T> {
  const attempts = opts.attempts ?? 50;
  const isSlugConflict = opts.isSlugConflict ?? isUniqueViolation;
  const extra = new Set<string>();
  for (let i = 0; i < attempts; i++) {
    const slug = nextFreeSlug(opts.base, [...(await opts.taken(opts.base)), ...extra]);
    try {
      return await opts.insert(slug);
    } catch (e) {
      if (!isSlugConflict(e)) throw e;
      extra.add(slug);
    }
  }
  throw errors.conflict(`Could not allocate a unique slug for "${opts.base}" (too many concurrent creates); try again.`);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: string): boolean => UUID_RE.test(v);

/** A `where` clause for a path segment that may be a slug or a UUID. */
export function slugOrUuid(ref: string): { uuid: string } | { slug: string } {
  return isUuid(ref) ? { uuid: ref.toLowerCase() } : { slug: ref };
}
