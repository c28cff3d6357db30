// Where the CLI takes a password from, so that it need not be on the command line (where it
// is visible in the process list, in shell history, and echoed by npm).
import { errors } from '../subgraphs/core/errors.js';

export const PASSWORD_ENV = 'TENANTRY_PASSWORD';

export class UsageError extends Error {}

/**
 * In order: `--password` (accepted, with a warning), the environment variable, a prompt without
 * echo when stdin is a terminal (asked twice), else the first line of stdin (a pipe).
 */
export async function readPassword(fromArgs: string | undefined): Promise<string> {
  if (fromArgs !== undefined) {
    process.stderr.write(
      `Warning: a password given with --password is visible in the process list and shell history; use ${PASSWORD_ENV} or the prompt.\n`,
    );
    return fromArgs;
  }
  const fromEnv = process.env[PASSWORD_ENV];
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) {
    const first = await prompt('Password: ');
    const again = await prompt('Password (again): ');
    if (first !== again) throw errors.field('password', 'The two passwords do not match.');
    return first;
  }
  const line = await firstLine(process.stdin);
  if (line === null) throw new UsageError(`No password: set ${PASSWORD_ENV}, run in a terminal to be prompted, or pipe it on stdin.`);
  return line;
}

/** Reads one line from the terminal in raw mode, echoing nothing. */
function prompt(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err: Error | null) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003') return done(new UsageError('Cancelled.')); // Ctrl-C
        if (ch === '\u0004') return done(value ? null : new UsageError('Cancelled.')); // Ctrl-D
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** The first line of a stream (without its line end), or null when it is empty. */
function firstLine(stream: NodeJS.ReadableStream): Promise<string | null> {
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = () => {
      stream.removeListener('data', onData);
      stream.removeListener('end', finish);
      stream.pause();
      const nl = text.search(/\r?\n/);
      const line = nl >= 0 ? text.slice(0, nl) : text;
      resolve(nl < 0 && line === '' ? null : line);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (/\n/.test(text) || text.length > 4096) finish();
    };
    stream.on('data', onData);
    stream.on('end', finish);
    stream.on('error', reject);
  });
}
