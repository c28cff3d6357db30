// What one run of a function produced, whatever its mode.
export type RunStatus = 'succeeded' | 'failed' | 'timed_out';

export interface RunOutcome {
  status: RunStatus;
  result: unknown;
  error: string | null;
  logs: string[];
}

/** Bounds on what a run may hand back (tenant-controlled sizes). */
export const LIMITS = {
  /** Serialized result, bytes. */
  resultBytes: 1024 * 1024,
  /** Log lines kept per run, and bytes per line. */
  logLines: 200,
  logLineBytes: 2048,
  /** Isolate heap, MiB. */
  memoryMb: 64,
};

/** Collects `ctx.log` lines up to the bounds; one marker line says what was dropped. */
export class LogBuffer {
  readonly lines: string[] = [];
  private dropped = 0;

  push(line: string): void {
    if (this.lines.length >= LIMITS.logLines) {
      this.dropped++;
      return;
    }
    this.lines.push(line.length > LIMITS.logLineBytes ? line.slice(0, LIMITS.logLineBytes) + '… [truncated]' : line);
  }

  done(): string[] {
    return this.dropped ? [...this.lines, `[${this.dropped} more log lines dropped]`] : this.lines;
  }
}

export const failed = (error: string, logs: string[] = []): RunOutcome => ({ status: 'failed', result: null, error, logs });
