// One interface for every engine an analytics query runs on. A connector receives the text
// its validator accepted and the bound values separately; it enforces read-only execution, the
// time-out and the row cap on its engine and streams at most `maxRows + 1` rows to tell
// whether the result was cut.
export type Engine = 'internal' | 'postgresql' | 'redshift' | 'mysql' | 'clickhouse' | 'elasticsearch';

export interface RunRequest {
  text: string;
  values: unknown[];
  maxRows: number;
  timeoutMs: number;
  /** ClickHouse: offsets of the `?` markers where the values go as literals. */
  markers?: number[];
}

export interface RunResult {
  rows: Record<string, unknown>[];
  truncated: boolean;
}

export interface Connector {
  run(req: RunRequest): Promise<RunResult>;
  close(): Promise<void>;
}

/** Connection-level failure codes (refused, unreachable, DNS, TLS, authentication): ConnectorError. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
  '28P01',
  '28000',
  '3D000',
  '57P01',
  '08006',
  '08001',
  '08004',
]);

export const isConnectionFailure = (e: unknown): boolean => {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && CONNECTION_CODES.has(code);
};
