// Hostile template parameter values for the analytics property tests: quotes, comments,
// statement separators, unicode, huge numbers and nested objects, from a seeded generator so
// that every run feeds the same 1,000 values.
const FRAGMENTS = [
  "'",
  '"',
  '`',
  '\\',
  '--',
  '/*',
  '*/',
  '#',
  ';',
  "'; DROP TABLE orders; --",
  '" OR "1"="1',
  "' OR 1=1 --",
  '$1',
  '?',
  '{{ secret_x }}',
  ':name',
  '{p:String}',
  '%s',
  '\n',
  '\r\n',
  '\t',
  'SELECT pg_sleep(10)',
  "') ; DELETE FROM orders WHERE ('1'='1",
  'é',
  '漢字',
  '🙂',
  '\u202e',
  '\u2028',
  'ﬀ',
  '\u{1F4A9}',
  ' ',
  'null',
  'NULL',
  '0x41',
  '\\x00',
  "\\'",
  "''",
  '"}]',
  '{"a":',
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export type HostileValue = string | number | boolean | null | HostileValue[] | { [k: string]: HostileValue };

export function hostileStrings(n: number, seed = 7): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const parts = 1 + Math.floor(r() * 5);
    let s = '';
    for (let j = 0; j < parts; j++)
      s += FRAGMENTS[Math.floor(r() * FRAGMENTS.length)] + (r() < 0.3 ? 'x'.repeat(Math.floor(r() * 20)) : '');
    out.push(s);
  }
  return out;
}

export function hostileNumbers(n: number, seed = 11): number[] {
  const r = rng(seed);
  const fixed = [0, -0, 1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 1e-300, 123456789012345680000, 0.1 + 0.2, 5e-324];
  const out = [...fixed];
  while (out.length < n) out.push((r() - 0.5) * 10 ** Math.floor(r() * 300));
  return out.slice(0, n);
}

export function hostileObjects(n: number, seed = 13): { [k: string]: HostileValue }[] {
  const r = rng(seed);
  const strings = hostileStrings(n * 3, seed + 1);
  const out: { [k: string]: HostileValue }[] = [];
  for (let i = 0; i < n; i++) {
    let v: HostileValue = { [strings[i * 3]]: strings[i * 3 + 1], n: Math.floor(r() * 1e9), ok: r() < 0.5, nil: null };
    const depth = Math.floor(r() * 6);
    for (let d = 0; d < depth; d++) v = { nested: v, list: [strings[i * 3 + 2], d, [v === null]] };
    out.push(v as { [k: string]: HostileValue });
  }
  return out;
}
