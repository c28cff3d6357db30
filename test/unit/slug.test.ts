// Slug generation and lookup (seed document 1, "Slugs and identifiers"), without I/O.
import { AppError } from '../../subgraphs/core/errors.js';
import { isUuid, isValidSlug, nextFreeSlug, slugify, slugOrUuid, withUniqueSlug } from '../../subgraphs/core/slug.js';

describe('slugify', () => {
  test.each([
    ['Ann Lee', 'ann-lee'],
    ['ann-lee', 'ann-lee'],
    ['ann_lee', 'ann-lee'],
    ['  Ann   Lee!! ', 'ann-lee'],
    ['ANN.LEE', 'ann-lee'],
    ['Crème Brûlée', 'creme-brulee'],
    ['Ünïcödé Çafé', 'unicode-cafe'],
    ['Straße', 'strasse'],
    ['Øresund Æble', 'oresund-aeble'],
    ['Łódź', 'lodz'],
    ['shop.example.com', 'shop-example-com'],
    ['--edge--case--', 'edge-case'],
    ['Acme 2024', 'acme-2024'],
  ])('%p → %p', (input, expected) => expect(slugify(input)).toBe(expected));

  test('nothing usable falls back', () => {
    expect(slugify('!!!')).toBe('item');
    expect(slugify('日本語', 'user')).toBe('user');
    expect(slugify('')).toBe('item');
  });

  test('long names are cut at 50 characters without a trailing hyphen', () => {
    const s = slugify(`${'a'.repeat(49)} b c d`);
    expect(s.length).toBeLessThanOrEqual(50);
    expect(s.endsWith('-')).toBe(false);
    expect(slugify('x'.repeat(80))).toBe('x'.repeat(50));
  });

  test('a name shaped like a UUID does not become a slug that reads as a UUID', () => {
    const uuidName = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    const s = slugify(uuidName);
    expect(isUuid(s)).toBe(false);
    expect(s).toContain(uuidName);
  });

  test('generated slugs are valid slugs', () => {
    for (const name of ['Ann Lee', 'Crème', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', '!!!']) {
      expect(isValidSlug(slugify(name))).toBe(true);
    }
  });
});

describe('isValidSlug', () => {
  test.each([['acme'], ['acme-2'], ['a1-b2-c3']])('%p is valid', (s) => expect(isValidSlug(s)).toBe(true));
  test.each([['Acme'], ['acme_2'], ['-acme'], ['acme-'], ['a--b'], [''], ['3f2504e0-4f89-11d3-9a0c-0305e82c3301'], ['a'.repeat(80)]])(
    '%p is not',
    (s) => expect(isValidSlug(s)).toBe(false),
  );
});

describe('nextFreeSlug', () => {
  test('base when free, then -2, -3, …, filling the first gap', () => {
    expect(nextFreeSlug('ann-lee', [])).toBe('ann-lee');
    expect(nextFreeSlug('ann-lee', ['ann-lee'])).toBe('ann-lee-2');
    expect(nextFreeSlug('ann-lee', ['ann-lee', 'ann-lee-2'])).toBe('ann-lee-3');
    expect(nextFreeSlug('ann-lee', ['ann-lee', 'ann-lee-3'])).toBe('ann-lee-2');
  });

  test('similar slugs that are not suffixes do not count', () => {
    expect(nextFreeSlug('ann', ['ann-lee', 'anna', 'ann-x'])).toBe('ann');
  });
});

describe('withUniqueSlug', () => {
  const conflict = Object.assign(new Error('duplicate key value violates unique constraint "users_slug_key"'), { code: '23505' });

  test('retries on a slug conflict with the next candidate', async () => {
    const tried: string[] = [];
    const stored = new Set(['acme']);
    const result = await withUniqueSlug({
      base: 'acme',
      taken: async () => [], // a stale read: the racing insert is not visible yet
      insert: async (slug) => {
        tried.push(slug);
        if (stored.has(slug)) throw conflict;
        stored.add(slug);
        return slug;
      },
    });
    expect(result).toBe('acme-2');
    expect(tried).toEqual(['acme', 'acme-2']);
  });

  test('other errors pass through untouched', async () => {
    const boom = new Error('connection lost');
    await expect(withUniqueSlug({ base: 'a', taken: async () => [], insert: async () => Promise.reject(boom) })).rejects.toBe(boom);
  });

  test('a conflict on another column is not retried', async () => {
    let calls = 0;
    const usernameConflict = { code: '23505', meta: { target: ['username'] } };
    await expect(
      withUniqueSlug({
        base: 'a',
        taken: async () => [],
        isSlugConflict: (e) => JSON.stringify((e as { meta?: unknown }).meta).includes('slug'),
        insert: async () => {
          calls++;
          throw usernameConflict;
        },
      }),
    ).rejects.toBe(usernameConflict);
    expect(calls).toBe(1);
  });

  test('gives up with a 409 AppError, never a bare Error', async () => {
    const err = await withUniqueSlug({ base: 'a', taken: async () => [], insert: async () => Promise.reject(conflict), attempts: 3 }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 409, code: 'conflict' });
  });
});

describe('slugOrUuid', () => {
  test('a UUID (any case) is looked up by uuid, lower-cased', () => {
    expect(slugOrUuid('3F2504E0-4F89-11D3-9A0C-0305E82C3301')).toEqual({ uuid: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' });
  });

  test('anything else is a slug', () => {
    expect(slugOrUuid('acme')).toEqual({ slug: 'acme' });
    expect(slugOrUuid('3f2504e0-4f89-11d3-9a0c')).toEqual({ slug: '3f2504e0-4f89-11d3-9a0c' });
    expect(slugOrUuid('s-3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toEqual({ slug: 's-3f2504e0-4f89-11d3-9a0c-0305e82c3301' });
  });
});
