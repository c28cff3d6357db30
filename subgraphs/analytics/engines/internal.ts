// Internal queries: the tenant's own schema, as a role made per site that may only USAGE and
// SELECT on that schema, inside a READ ONLY transaction with statement_timeout and
// search_path set to the schema. At most maxRows + 1 rows are produced (an outer LIMIT).
import crypto from 'node:crypto';
import type pg from 'pg';
import type { Platform } from '../../core/context.js';
import { quoteSchema } from '../../tenancy/tenancy.api.js';
import type { RunRequest, RunResult } from './connector.js';

/** Namespace of the advisory lock that serializes creating a site's analytics role. */
const ROLE_LOCK = 727_300_006;

const ready = new WeakMap<Platform, Set<number>>();
const roleNames = new WeakMap<Platform, Promise<string>>();

/**
 * The role of site `siteId`: `analytics_<database hash>_<site id>`. Roles belong to the
 * PostgreSQL cluster, so the name carries the database's identity: two platform databases on
 * one server never share a role.
 */
async function rolePrefix(platform: Platform): Promise<string> {
  let p = roleNames.get(platform);
  if (!p) {
    p = platform.pool
      .query<{ id: string }>("SELECT current_database() || ':' || oid AS id FROM pg_database WHERE datname = current_database()")
      .then((r) => `analytics_${crypto.createHash('sha1').update(r.rows[0].id).digest('hex').slice(0, 10)}`);
    roleNames.set(platform, p);
  }
  return p;
}

export const siteRoleName = async (platform: Platform, siteId: number): Promise<string> =>
  `${await rolePrefix(platform)}_${Math.trunc(siteId)}`;

/**
 * Creates the site's role if needed and grants it USAGE on the schema and SELECT on its present
 * and future tables (those the platform creates). False while the schema does not exist yet
 * (no table created): then there is nothing to read and it is tried again next time.
 */
export async function ensureSiteRole(platform: Platform, siteId: number, schema: string): Promise<boolean> {
  let set = ready.get(platform);
  if (!set) ready.set(platform, (set = new Set()));
  if (set.has(siteId)) return true;
  const role = await siteRoleName(platform, siteId);
  const q = quoteSchema(schema);
  const client = await platform.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [ROLE_LOCK, siteId]);
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) {
      await client.query('ROLLBACK');
      return false;
    }
    const r = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if (r.rowCount === 0) await client.query(`CREATE ROLE "${role}" NOLOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    const su = await client.query<{ su: boolean }>('SELECT rolsuper AS su FROM pg_roles WHERE rolname = current_user');
    if (!su.rows[0]?.su) await client.query(`GRANT "${role}" TO CURRENT_USER`);
    await client.query(`GRANT USAGE ON SCHEMA ${q} TO "${role}"`);
    await client.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${q} TO "${role}"`);
    await client.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${q} GRANT SELECT ON TABLES TO "${role}"`);
    await client.query('COMMIT');
    set.add(siteId);
    return true;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/** Forgets what this process knows about site roles (after a purge, in tests). */
export const forgetSiteRoles = (platform: Platform): void => void ready.delete(platform);

export interface InternalTarget {
  siteId: number;
  schema: string;
}

/** Runs one checked query in the site's schema as the site's role; the transaction only reads and always rolls back. */
export async function runInternal(platform: Platform, target: InternalTarget, req: RunRequest): Promise<RunResult> {
  await ensureSiteRole(platform, target.siteId, target.schema);
  const role = await siteRoleName(platform, target.siteId);
  const timeout = Math.max(1, Math.trunc(req.timeoutMs));
  const fetch = Math.max(1, Math.trunc(req.maxRows) + 1);
  const client: pg.PoolClient = await platform.pool.connect();
  let broken: Error | undefined;
  try {
    // One round trip (simple protocol, no values): the transaction and its settings.
    await client.query(
      `BEGIN READ ONLY; SET LOCAL statement_timeout = ${timeout}; SET LOCAL search_path = ${quoteSchema(target.schema)}; SET LOCAL ROLE "${role}"`,
    );
    // The cap as an outer LIMIT: PostgreSQL stops producing rows there, and unlike a cursor the
    // query keeps its parallel plans.
    const res = await client.query<Record<string, unknown>>({
      text: `SELECT * FROM (${req.text}\n) AS analytics_result LIMIT ${fetch}`,
      values: req.values,
    });
    const truncated = res.rows.length > req.maxRows;
    return { rows: truncated ? res.rows.slice(0, req.maxRows) : res.rows, truncated };
  } finally {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    client.release(broken);
  }
}
