// The PostgreSQL schema that holds a site's own tables. Its name comes from the site's slug
// only (never from raw input) and is always quoted, so no identifier reaches SQL unchecked.
import type { Tx } from '../core/db.js';
import { errors } from '../core/errors.js';

const SCHEMA_RE = /^[a-z0-9_]{1,63}$/;

/**
 * `slug` with hyphens as underscores. Names PostgreSQL reserves or uses itself (`pg_*`,
 * `public`, `information_schema`) get the prefix `site__`: slugs never contain two hyphens in a
 * row, so a double underscore can never collide with another slug's schema name.
 */
export function schemaNameFor(slug: string): string {
  const base = slug.replace(/-/g, '_');
  const reserved = base.startsWith('pg_') || base === 'public' || base === 'information_schema';
  return reserved ? `site__${base}` : base;
}

/** A schema name as a quoted identifier; refuses anything schemaNameFor could not produce. */
export function quoteSchema(name: string): string {
  if (!SCHEMA_RE.test(name) || name.startsWith('pg_') || name === 'public' || name === 'information_schema') {
    throw errors.invalid(`"${name}" is not a usable schema name.`);
  }
  return `"${name}"`;
}

/** Whether a schema of that name exists (any owner: a stray schema also blocks a site). */
export async function schemaExists(tx: Tx, name: string): Promise<boolean> {
  const rows = await tx.$queryRawUnsafe<{ n: number }[]>('SELECT 1 AS n FROM pg_namespace WHERE nspname = $1', name);
  return rows.length > 0;
}

/** Inside the caller's transaction: DDL in PostgreSQL rolls back with it. */
export async function createSiteSchema(tx: Tx, name: string): Promise<void> {
  if (await schemaExists(tx, name))
    throw errors.conflict(`A database schema named "${name}" already exists.`, { schema_name: ['Already exists.'] });
  await tx.$executeRawUnsafe(`CREATE SCHEMA ${quoteSchema(name)}`);
}

/** Drops the schema and everything in it (purge only). */
export async function dropSiteSchema(tx: Tx, name: string): Promise<void> {
  await tx.$executeRawUnsafe(`DROP SCHEMA IF EXISTS ${quoteSchema(name)} CASCADE`);
}
