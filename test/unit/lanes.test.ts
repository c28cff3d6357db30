// Keyed concurrency lanes (subgraphs/core/lanes.ts): the bound per key, arrival order, refusal
// past the queue, and independence of keys.
import { Lanes } from '../../subgraphs/core/lanes.js';

const gate = () => {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
};
const tick = () => new Promise((r) => setImmediate(r));

test('at most `running` at once per key; the rest start in arrival order; past `waiting` refused', async () => {
  const lanes = new Lanes(2, 2);
  const started: number[] = [];
  const gates = [gate(), gate(), gate(), gate()];
  const refuse = () => new Error('busy');
  const runs = gates.map((g, i) =>
    lanes.run(
      'site-1',
      async () => {
        started.push(i);
        await g.p;
        return i;
      },
      refuse,
    ),
  );
  await tick();
  expect(started).toEqual([0, 1]);
  expect(lanes.size('site-1')).toEqual({ running: 2, waiting: 2 });
  await expect(lanes.run('site-1', async () => 5, refuse)).rejects.toThrow('busy');
  // Another key is not held up by site-1.
  await expect(lanes.run('site-2', async () => 'other', refuse)).resolves.toBe('other');
  gates[1].open();
  await tick();
  await tick();
  expect(started).toEqual([0, 1, 2]);
  gates[0].open();
  gates[2].open();
  gates[3].open();
  await expect(Promise.all(runs)).resolves.toEqual([0, 1, 2, 3]);
  expect(lanes.size('site-1')).toEqual({ running: 0, waiting: 0 });
});

test('a failing piece of work frees its slot', async () => {
  const lanes = new Lanes(1, 5);
  const refuse = () => new Error('busy');
  await expect(
    lanes.run(
      'k',
      async () => {
        throw new Error('boom');
      },
      refuse,
    ),
  ).rejects.toThrow('boom');
  await expect(lanes.run('k', async () => 'next', refuse)).resolves.toBe('next');
  expect(lanes.size('k')).toEqual({ running: 0, waiting: 0 });
});
