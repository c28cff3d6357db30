// External ClickHouse through @clickhouse/client (HTTP): every query carries readonly=1, a
// server-side max_execution_time and a result cap (max_result_rows = maxRows + 1 with
// result_overflow_mode=break); rows are streamed and the stream is dropped past the cap.
import { createClient } from '@clickhouse/client';
import { spliceLiterals } from '../template/clickhouse-check.js';
import type { Connector, RunRequest, RunResult } from './connector.js';

export interface ClickhouseConnection {
  host: string;
  port: number;
  database: string;
  username: string;
  password: string;
  secure: boolean;
}

export function clickhouseConnector(c: ClickhouseConnection, timeoutMs: number): Connector {
  const client = createClient({
    url: `${c.secure ? 'https' : 'http'}://${c.host}:${c.port}`,
    username: c.username,
    password: c.password,
    database: c.database,
    request_timeout: timeoutMs + 2000,
    max_open_connections: 4,
    application: 'tenantry-analytics',
  });
  return {
    async run(req: RunRequest): Promise<RunResult> {
      const rs = await client.query({
        query: spliceLiterals(req.text, req.markers ?? [], req.values),
        format: 'JSONEachRow',
        clickhouse_settings: {
          readonly: '1',
          max_execution_time: Math.max(1, Math.ceil(req.timeoutMs / 1000)),
          max_result_rows: String(req.maxRows + 1),
          result_overflow_mode: 'break',
        },
      });
      const rows: Record<string, unknown>[] = [];
      let truncated = false;
      const stream = rs.stream();
      outer: for await (const batch of stream) {
        for (const row of batch as { json(): unknown }[]) {
          if (rows.length >= req.maxRows) {
            truncated = true;
            break outer;
          }
          rows.push(row.json() as Record<string, unknown>);
        }
      }
      if (truncated) stream.destroy();
      return { rows, truncated };
    },
    close: () => client.close(),
  };
}
