// External PostgreSQL and Redshift (which speaks the PostgreSQL protocol): a pg.Pool per
// connection secret whose sessions start read-only with a statement time-out; each query runs
// in a READ ONLY transaction, capped at maxRows + 1 rows by an outer LIMIT.
import pg from 'pg';
import type { Connector, RunRequest, RunResult } from './connector.js';

export interface SqlConnection {
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
}

export function postgresConnector(c: SqlConnection, timeoutMs: number, redshift = false): Connector {
  const pool = new pg.Pool({
    host: c.host,
    port: c.port,
    database: c.database,
    user: c.username,
    password: c.password,
    max: 4,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: Math.min(timeoutMs, 10_000),
    allowExitOnIdle: true,
    application_name: 'tenantry-analytics',
    // Redshift accepts neither option at start-up; it gets them per transaction below.
    ...(redshift ? {} : { options: `-c default_transaction_read_only=on -c statement_timeout=${Math.trunc(timeoutMs)}` }),
  });
  pool.on('error', () => {});
  return {
    async run(req: RunRequest): Promise<RunResult> {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN READ ONLY');
        await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.trunc(req.timeoutMs))}`);
        const res = await client.query<Record<string, unknown>>({
          text: `SELECT * FROM (${req.text}\n) AS analytics_result LIMIT ${Math.trunc(req.maxRows) + 1}`,
          values: req.values,
        });
        const truncated = res.rows.length > req.maxRows;
        return { rows: truncated ? res.rows.slice(0, req.maxRows) : res.rows, truncated };
      } finally {
        await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
