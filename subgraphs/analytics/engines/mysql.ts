// External MySQL/MariaDB through mysql2: a pool per connection secret whose sessions are
// read-only with a server-side time-out (MariaDB max_statement_time, MySQL
// max_execution_time). Values are bound by the server (prepared statements, `?`), rows are
// streamed and the connection is dropped once maxRows + 1 have arrived. Session settings can
// be undone by a session that may run SET; queries here cannot, but the real boundary is an
// account with SELECT only (docs/analytics.md).
import mysql from 'mysql2';
import type { Connector, RunRequest, RunResult } from './connector.js';
import type { SqlConnection } from './postgres.js';

export function mysqlConnector(c: SqlConnection, timeoutMs: number): Connector {
  const pool = mysql.createPool({
    host: c.host,
    port: c.port,
    database: c.database,
    user: c.username,
    password: c.password,
    connectionLimit: 4,
    maxIdle: 1,
    idleTimeout: 10_000,
    connectTimeout: Math.min(timeoutMs, 10_000),
    multipleStatements: false,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
  });
  const seconds = Math.max(0.001, timeoutMs / 1000).toFixed(3);
  pool.on('connection', (conn) => {
    // Whichever of the two the server knows; the other answers an error that is ignored.
    conn.query(`SET SESSION TRANSACTION READ ONLY`, () => undefined);
    conn.query(`SET SESSION max_statement_time = ${seconds}`, () => undefined);
    conn.query(`SET SESSION max_execution_time = ${Math.trunc(timeoutMs)}`, () => undefined);
  });
  return {
    run(req: RunRequest): Promise<RunResult> {
      return new Promise((resolve, reject) => {
        pool.getConnection((err, conn) => {
          if (err) return reject(err);
          const rows: Record<string, unknown>[] = [];
          let done = false;
          const finish = (e: unknown, truncated = false) => {
            if (done) return;
            done = true;
            if (truncated) conn.destroy();
            else conn.release();
            if (e) reject(e);
            else resolve({ rows, truncated });
          };
          const cmd = conn.execute(req.text, req.values as never[]);
          cmd.on('result', (row: unknown) => {
            if (done) return;
            rows.push(row as Record<string, unknown>);
            if (rows.length > req.maxRows) {
              rows.length = req.maxRows;
              finish(null, true);
            }
          });
          cmd.on('error', (e: unknown) => finish(e));
          cmd.on('end', () => finish(null));
        });
      });
    },
    close: () => new Promise<void>((resolve) => pool.end(() => resolve())),
  };
}
