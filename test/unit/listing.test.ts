// List conventions (seed document 1, DECISIONS §4), without I/O.
import { AppError } from '../../subgraphs/core/errors.js';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE,
  MAX_PAGE_SIZE,
  listInputFromQuery,
  orderBy,
  pageRequest,
  param,
  parseBool,
  parseOrdering,
  parsePage,
  parseSearch,
  searchTerm,
  toPage,
} from '../../subgraphs/core/listing.js';

function fieldError(fn: () => unknown): { status: number; code: string; errors?: Record<string, string[]> } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    return { status: err.status, code: err.code, errors: err.errors };
  }
  throw new Error('expected an AppError');
}

describe('parsePage', () => {
  test('defaults: page 1, page_size 20', () => {
    expect(parsePage({})).toEqual({ page: 1, pageSize: DEFAULT_PAGE_SIZE, offset: 0 });
    expect(DEFAULT_PAGE_SIZE).toBe(20);
  });

  test('page and page_size give the offset', () => {
    expect(parsePage({ page: '3', page_size: '25' })).toEqual({ page: 3, pageSize: 25, offset: 50 });
  });

  test('page_size above the maximum is clamped to 100, not refused', () => {
    expect(MAX_PAGE_SIZE).toBe(100);
    expect(parsePage({ page_size: '101' }).pageSize).toBe(100);
    expect(parsePage({ page_size: '1000000000000000000000' }).pageSize).toBe(100);
  });

  test('module-specific defaults and maximum', () => {
    expect(parsePage({}, { pageSize: 10, max: 100 }).pageSize).toBe(10);
    expect(parsePage({ page_size: '500' }, { pageSize: 100, max: 1000 }).pageSize).toBe(500);
  });

  test('an empty value means the default; a repeated one, the last', () => {
    expect(parsePage({ page: '', page_size: '' })).toEqual({ page: 1, pageSize: 20, offset: 0 });
    expect(parsePage({ page: ['1', '2'] }).page).toBe(2);
  });

  test.each([['0'], ['-1'], ['1.5'], ['abc'], ['1e3'], [' ']])('page=%p answers 400 naming the field', (raw) => {
    const err = fieldError(() => parsePage({ page: raw === ' ' ? 'x y' : raw }));
    expect(err).toMatchObject({ status: 400, code: 'invalid' });
    expect(Object.keys(err.errors ?? {})).toEqual(['page']);
  });

  test('page_size=0 answers 400', () => {
    expect(fieldError(() => parsePage({ page_size: '0' })).errors).toHaveProperty('page_size');
  });

  test('an absurd page number answers 400 instead of overflowing the SQL offset', () => {
    expect(parsePage({ page: String(MAX_PAGE) }).page).toBe(MAX_PAGE);
    expect(fieldError(() => parsePage({ page: '99999999999999999999' })).status).toBe(400);
  });
});

describe('toPage', () => {
  const base = 'https://api.example.test/api/organizations/?search=acme&page_size=2';

  test('first page: next is absolute and keeps other parameters; previous is null', () => {
    const p = toPage(base, parsePage({ page_size: '2' }), 5, ['a', 'b']);
    expect(p).toEqual({ count: 5, next: expect.any(String), previous: null, results: ['a', 'b'] });
    const next = new URL(p.next!);
    expect(next.origin + next.pathname).toBe('https://api.example.test/api/organizations/');
    expect(Object.fromEntries(next.searchParams)).toEqual({ search: 'acme', page_size: '2', page: '2' });
  });

  test('middle page links both ways; the link to page 1 carries no page parameter', () => {
    const url = `${base}&page=2`;
    const p = toPage(url, parsePage({ page: '2', page_size: '2' }), 5, ['c', 'd']);
    expect(new URL(p.next!).searchParams.get('page')).toBe('3');
    const prev = new URL(p.previous!);
    expect(prev.searchParams.has('page')).toBe(false);
    expect(prev.searchParams.get('search')).toBe('acme');
  });

  test('last page: next is null', () => {
    const p = toPage(`${base}&page=3`, parsePage({ page: '3', page_size: '2' }), 5, ['e']);
    expect(p.next).toBeNull();
    expect(new URL(p.previous!).searchParams.get('page')).toBe('2');
  });

  test('a page past the end is empty and points back to the last page', () => {
    const p = toPage(`${base}&page=9`, parsePage({ page: '9', page_size: '2' }), 5, []);
    expect(p).toMatchObject({ count: 5, next: null, results: [] });
    expect(new URL(p.previous!).searchParams.get('page')).toBe('3');
  });

  test('an empty list has no links', () => {
    expect(toPage(base, parsePage({}), 0, [])).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  test('repeated and encoded parameters survive', () => {
    const url = 'http://localhost:4000/api/users/?tag=a&tag=b&search=ann%20lee';
    const p = toPage(url, parsePage({ page_size: '1' }), 3, [1]);
    const next = new URL(p.next!);
    expect(next.searchParams.getAll('tag')).toEqual(['a', 'b']);
    expect(next.searchParams.get('search')).toBe('ann lee');
    expect(next.host).toBe('localhost:4000');
  });
});

describe('parseOrdering', () => {
  const allowed = { name: 'name', created_at: 'created_at', created: 'created_at' };

  test('fallback, ascending and descending, several fields', () => {
    expect(parseOrdering({}, allowed, 'name')).toEqual([{ field: 'name', column: 'name', desc: false }]);
    expect(parseOrdering({ ordering: '-created_at, name' }, allowed, 'name')).toEqual([
      { field: 'created_at', column: 'created_at', desc: true },
      { field: 'name', column: 'name', desc: false },
    ]);
    expect(parseOrdering({ ordering: '-created' }, allowed, 'name')[0]).toEqual({ field: 'created', column: 'created_at', desc: true });
  });

  test.each([['password_hash'], ['-id'], ['name;drop table users'], ['-'], ['__proto__'], ['constructor']])(
    'ordering=%p (not whitelisted) answers 400 naming the field',
    (raw) => {
      const err = fieldError(() => parseOrdering({ ordering: raw }, allowed, 'name'));
      expect(err.status).toBe(400);
      expect(err.errors?.ordering?.[0]).toContain('Allowed: name, created_at, created');
    },
  );
});

describe('parseBool', () => {
  test.each([
    ['true', true],
    ['True', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['no', false],
  ])('%p → %p', (raw, expected) => expect(parseBool({ is_active: raw }, 'is_active')).toBe(expected));

  test('absent or empty is undefined (no filter)', () => {
    expect(parseBool({}, 'is_active')).toBeUndefined();
    expect(parseBool({ is_active: '' }, 'is_active')).toBeUndefined();
  });

  test.each([['maybe'], ['2'], ['truee']])('%p answers 400 naming the parameter', (raw) => {
    const err = fieldError(() => parseBool({ is_active: raw }, 'is_active'));
    expect(err).toMatchObject({ status: 400, code: 'invalid', errors: { is_active: [expect.stringContaining('not a boolean')] } });
  });
});

describe('parseSearch and param', () => {
  test('search is trimmed; blank is no search; very long answers 400', () => {
    expect(parseSearch({ search: '  acme  ' })).toBe('acme');
    expect(parseSearch({ search: '   ' })).toBeUndefined();
    expect(fieldError(() => parseSearch({ search: 'x'.repeat(201) })).errors).toHaveProperty('search');
  });

  test('param takes the last of repeated values', () => {
    expect(param({ a: ['1', '2'] }, 'a')).toBe('2');
    expect(param({}, 'a')).toBeUndefined();
  });
});

describe('typed list input', () => {
  test('listInputFromQuery: page, page_size, search, ordering and the allowed filters, camelCased', () => {
    const input = listInputFromQuery(
      { page: '2', page_size: '5', search: ' x ', ordering: '-name', is_active: 'no', organization_slug: 'acme', other: 'y' },
      { is_active: 'boolean', organization_slug: 'string' },
    );
    expect(input).toEqual({ page: 2, pageSize: 5, search: ' x ', ordering: '-name', isActive: false, organizationSlug: 'acme' });
    const typed: { isActive?: boolean; organizationSlug?: string } = input;
    expect(typed.isActive).toBe(false);
    expect(listInputFromQuery({})).toEqual({});
  });

  test('listInputFromQuery: the same field errors as parsePage and parseBool', () => {
    expect(fieldError(() => listInputFromQuery({ page: '00' })).errors).toEqual({ page: ['"00" is not a positive whole number.'] });
    expect(fieldError(() => listInputFromQuery({ page_size: 'x' })).errors).toEqual({ page_size: ['"x" is not a positive whole number.'] });
    expect(fieldError(() => listInputFromQuery({ page: String(MAX_PAGE + 1) })).errors).toEqual({
      page: [`Page numbers stop at ${MAX_PAGE}.`],
    });
    expect(fieldError(() => listInputFromQuery({ purge: 'maybe' }, { purge: 'boolean' })).errors).toEqual({
      purge: ['"maybe" is not a boolean (use true or false).'],
    });
  });

  test('pageRequest holds typed inputs to the same ranges (GraphQL arguments)', () => {
    expect(pageRequest({})).toEqual({ page: 1, pageSize: DEFAULT_PAGE_SIZE, offset: 0 });
    expect(pageRequest({ page: null, pageSize: null })).toEqual({ page: 1, pageSize: DEFAULT_PAGE_SIZE, offset: 0 });
    expect(pageRequest({ page: 3, pageSize: 1000 })).toEqual({ page: 3, pageSize: MAX_PAGE_SIZE, offset: 200 });
    expect(pageRequest({ pageSize: 1e21 }).pageSize).toBe(MAX_PAGE_SIZE);
    expect(fieldError(() => pageRequest({ page: 0 })).errors).toEqual({ page: ['"0" is not a positive whole number.'] });
    expect(fieldError(() => pageRequest({ pageSize: -1 })).errors).toEqual({ page_size: ['"-1" is not a positive whole number.'] });
    expect(fieldError(() => pageRequest({ page: MAX_PAGE + 1 })).errors).toEqual({ page: [`Page numbers stop at ${MAX_PAGE}.`] });
    expect(pageRequest({ pageSize: 50 }, { pageSize: 100, max: 100 }).pageSize).toBe(50);
  });

  test('searchTerm and orderBy: the rules parseSearch and parseOrdering apply to a query', () => {
    expect(searchTerm('  ')).toBeUndefined();
    expect(searchTerm(' a ')).toBe('a');
    expect(fieldError(() => searchTerm('x'.repeat(201))).errors).toEqual({ search: ['Search text is limited to 200 characters.'] });
    expect(orderBy(undefined, { name: 'name' }, 'name')).toEqual([{ field: 'name', column: 'name', desc: false }]);
    expect(orderBy('', { name: 'name' }, '-name')).toEqual([{ field: 'name', column: 'name', desc: true }]);
    expect(fieldError(() => orderBy('__proto__', { name: 'name' }, 'name')).errors).toEqual({
      ordering: ['Cannot order by "__proto__". Allowed: name.'],
    });
  });
});
