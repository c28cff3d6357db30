// Slugs: generated from a name, unique through a database constraint, with `-2`, `-3`, …
// suffixes on collision. Safe under concurrent creates: the insert is retried when the
// unique constraint on the slug rejects it.
import { isUniqueViolation } from './db.js';

export function slugify(input: string, fallback = 'item'): string {
  const s = input
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/g, '');
  return s || fallback;
}

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

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

export async function withUniqueSlug<T>(opts: UniqueSlugOptions<T>): Promise<T> {
  const attempts = opts.attempts ?? 25;
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
  throw new Error(`could not find a free slug for "${opts.base}" after ${attempts} attempts`);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: string): boolean => UUID_RE.test(v);

/** A `where` clause for a path segment that may be a slug or a UUID. */
export function slugOrUuid(ref: string): { uuid: string } | { slug: string } {
  return isUuid(ref) ? { uuid: ref.toLowerCase() } : { slug: ref };
}
