// Keyed concurrency lanes: at most `running` pieces of work per key at once in this process, the
// rest wait in arrival order, and past `waiting` queued ones a new arrival is refused at once.
// One tenant's burst then holds at most `running` database connections, and never an unbounded
// queue of memory, while other keys (tenants) run beside it.

interface Lane {
  running: number;
  queue: Array<() => void>;
}

export class Lanes {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly running: number,
    private readonly waiting: number,
  ) {}

  /** Runs `work` in lane `key`; `refuse()` is thrown when the lane's queue is full. */
  async run<T>(key: string, work: () => Promise<T>, refuse: () => Error): Promise<T> {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, queue: [] }));
    if (lane.running >= this.running) {
      if (lane.queue.length >= this.waiting) throw refuse();
      await new Promise<void>((resolve) => lane!.queue.push(resolve));
    } else {
      lane.running++;
    }
    try {
      return await work();
    } finally {
      const next = lane.queue.shift();
      // The slot passes straight to the next in line (running stays the same), else it frees.
      if (next) next();
      else if (--lane.running === 0) this.lanes.delete(key);
    }
  }

  /** Work running and waiting in lane `key` (for tests and metrics). */
  size(key: string): { running: number; waiting: number } {
    const lane = this.lanes.get(key);
    return { running: lane?.running ?? 0, waiting: lane?.queue.length ?? 0 };
  }
}
