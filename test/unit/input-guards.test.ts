// The edge's input rules (gateway/input-guards.ts): JSON depth found without parsing, and the
// first NUL or out-of-range number in a parsed body named by its path.
import { findBadValue, jsonDepthExceeds } from '../../gateway/input-guards.js';

test('depth: arrays and objects count, brackets inside strings and escaped quotes do not', () => {
  expect(jsonDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
  expect(jsonDepthExceeds('{"a":[{"b":1}]}', 2)).toBe(true);
  expect(jsonDepthExceeds(JSON.stringify({ s: '[[[[[[{{{{{' }), 1)).toBe(false);
  expect(jsonDepthExceeds(JSON.stringify({ s: 'a\\"[[[[' }), 1)).toBe(false);
  expect(jsonDepthExceeds('['.repeat(100_000), 64)).toBe(true);
  expect(jsonDepthExceeds('[]'.repeat(100_000), 1)).toBe(false);
});

test('bad values: NUL in a string or key, non-finite numbers, with their path', () => {
  expect(findBadValue({ a: 'ok', b: [1, 2.5, -3e300], c: { d: null, e: true } })).toBeNull();
  expect(findBadValue({ a: { b: ['x', 'y\u0000'] } })).toEqual({ field: 'a.b[1]', message: expect.stringContaining('NUL') });
  expect(findBadValue({ 'k\u0000': 1 })).toEqual({ field: 'k\\u0000', message: expect.stringContaining('NUL') });
  expect(findBadValue(JSON.parse('{"n": 1e400}'))).toEqual({ field: 'n', message: expect.stringContaining('double') });
  expect(findBadValue(JSON.parse('[-1e400]'))?.field).toBe('[0]');
  expect(findBadValue('a\u0000')?.field).toBe('body');
  expect(findBadValue(JSON.parse('1e-400'))).toBeNull(); // underflow is 0, a valid number
});
