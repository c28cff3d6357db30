// Runs a schema change's DDL steps on the transaction's client and turns what PostgreSQL
// refuses (existing rows breaking a new constraint, dependent objects, clashing names) into a
// 400 naming the package path of the step, never a 500.
import type pg from 'pg';
import { dataErrors } from '../data-errors.js';
import type { Step } from './table-migrate.js';

const MESSAGES: Record<string, string> = {
  '23505': 'Existing rows have duplicate values, so it cannot be unique.',
  '23502': 'Existing rows have no value for it; give it a default or fill those rows first.',
  '23514': 'Existing rows break this constraint.',
  '23503': 'Existing rows reference records that do not exist.',
  '2BP01': 'Other tables depend on it (foreign keys); change or delete them first.',
  '42P07': 'A table of that name already exists in the site database.',
  '42710': 'An object of that name already exists in the site database.',
};

/** A database error of a DDL step as a 400 at `at`; anything that is not a database error is rethrown. */
export function ddlError(e: unknown, at: string): unknown {
  const err = e as { code?: string; message?: string; detail?: string };
  if (typeof err?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(err.code)) return e;
  const cls = err.code.slice(0, 2);
  if (!['22', '23', '2B', '42', '54'].includes(cls)) return e;
  const msg = MESSAGES[err.code] ?? `The database refused the change: ${err.message ?? err.code}`;
  return dataErrors.validation({ [at]: [msg] }, 'Schema change failed.');
}

async function exec(client: pg.PoolClient, sql: string, at: string): Promise<void> {
  try {
    await client.query(sql);
  } catch (e) {
    throw ddlError(e, at);
  }
}

/** Steps in order; a step with a fallback runs under a savepoint and falls back on failure. */
export async function runSteps(client: pg.PoolClient, steps: Step[]): Promise<void> {
  for (const s of steps) {
    if (!s.fallback) {
      await exec(client, s.sql, s.at);
      continue;
    }
    await client.query('SAVEPOINT ddl_step');
    try {
      await client.query(s.sql);
      await client.query('RELEASE SAVEPOINT ddl_step');
    } catch {
      await client.query('ROLLBACK TO SAVEPOINT ddl_step');
      for (const sql of s.fallback) await exec(client, sql, s.at);
    }
  }
}
