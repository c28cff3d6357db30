// Connections to the platform database: one pg.Pool shared by raw SQL and Prisma.
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../prisma/generated/client.js';

export type Db = PrismaClient;
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

// BIGINT columns (counts, audit ids) arrive as JS numbers; they stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function createPool(url: string, max = 20, connectTimeoutMs = 5000): pg.Pool {
  // A bounded wait for a connection: with the database unreachable or every connection busy,
  // a request fails (503 service_unavailable) instead of hanging.
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: connectTimeoutMs });
  pool.setMaxListeners(0);
  // An idle client's error (a server restart, a terminated backend: 57P01) must not crash the
  // process: pg already discards that client. The platform adds a listener that logs it;
  // pools made elsewhere (tests, CLI) get this one.
  pool.on('error', () => {});
  return pool;
}

let statementCounter = 0;
const statementNames = new Map<string, string>();

/**
 * Named (prepared) statements, so PostgreSQL plans each distinct query once per connection
 * instead of on every execution (planning the access-checked reads costs several times their
 * execution). Only for SQL built from fixed fragments: a bounded set of texts.
 */
export function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `p${++statementCounter}`;
    if (statementNames.size < 5000) statementNames.set(sql, name);
  }
  return name;
}

/** A pg query config for a prepared statement of this text. */
export const prepared = (text: string, values: unknown[]): pg.QueryConfig => ({ name: statementName(text), text, values });

export function createPrisma(pool: pg.Pool): PrismaClient {
  const adapter = new PrismaPg(pool, { statementNameGenerator: (q) => statementName(q.sql) });
  // Prisma's default waits only 2 s for a connection before giving up on a transaction; a busy
  // pool (a burst of writes) then fails requests that would have been served a moment later.
  return new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 20_000 } });
}

export { isUniqueViolation } from './db-errors.js';

export interface TransactionOptions {
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  readOnly?: boolean;
}

/**
 * Runs `work` in one transaction on a connection of its own: COMMIT when it returns, ROLLBACK
 * when it throws (the error is rethrown as is; callers map it with mapDbError). A connection
 * whose ROLLBACK failed is discarded, never returned to the pool.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await transactionOn(client, work, opts, (r) => (broken = r));
  } finally {
    client.release(broken);
  }
}

/**
 * One transaction on a connection the caller holds (the migration runner keeps its session
 * lock on it). `onBrokenRollback` hears of a ROLLBACK that failed: that connection is unusable.
 */
export async function transactionOn<T, C extends pg.ClientBase>(
  client: C,
  work: (client: C) => Promise<T>,
  opts: TransactionOptions = {},
  onBrokenRollback: (e: Error) => void = () => undefined,
): Promise<T> {
  const mode = [opts.isolation ? `ISOLATION LEVEL ${opts.isolation.toUpperCase()}` : '', opts.readOnly ? 'READ ONLY' : '']
    .filter(Boolean)
    .join(' ');
  await client.query(mode ? `BEGIN ${mode}` : 'BEGIN');
  try {
    const out = await work(client);
    await client.query('COMMIT');
    return out;
  } catch (e) {
    await client.query('ROLLBACK').catch(onBrokenRollback);
    throw e;
  }
}
