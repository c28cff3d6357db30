// The fuzz tests' seed: random per run and printed, so that a failure can be replayed with
// FUZZ_SEED=<n> npm test -- <file>.
export function fuzzSeed(name: string): number {
  const fixed = process.env.FUZZ_SEED;
  const seed = fixed !== undefined && /^\d+$/.test(fixed) ? Number(fixed) : Math.floor(Math.random() * 2 ** 31);
  process.stderr.write(`[fuzz] ${name}: seed ${seed} (replay: FUZZ_SEED=${seed})\n`);
  return seed;
}

/** mulberry32: small, fast, good enough to pick cases reproducibly from a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
