// create_schema: a Data Package applied in one transaction under the app's advisory lock.
// New tables are created, existing ones migrated; DDL runs in phases (drop objects, drop
// re-created tables, create and alter tables, add constraints and indexes, add foreign keys)
// so references among the package's tables resolve in any order, cycles included.
import type pg from 'pg';
import type { RequestContext } from '../../core/context.js';
import { withTransaction } from '../../core/db.js';
import type { FieldErrors } from '../../core/errors.js';
import type { AppRow } from '../../tenancy/tenancy.api.js';
import { quoteSchema } from '../../tenancy/tenancy.api.js';
import { dataErrors } from '../data-errors.js';
import { checkReferences, modelFromStored, normalizeSchema, parsePackage, physicalNameFor } from '../model/schema-parse.js';
import type { TableModel } from '../model/table-model.js';
import { qualified } from '../sql.js';
import { catalogueRepository, type CatalogueRow } from './catalogue.repository.js';
import { runSteps } from './ddl-runner.js';
import { addObjectSql, createStoreSql, createTableSql, dropObjectSql, flatObjects, jsonbObjects, type DdlObject } from './table-ddl.js';
import {
  destructiveErrors,
  diffObjects,
  fieldChanges,
  flatColumnSteps,
  jsonbDataSteps,
  keyChanged,
  objectPath,
  type Step,
} from './table-migrate.js';
import { constraintScope, jsonbStoreName, SCHEMA_LOCK, SITE_SCHEMA_LOCK } from './table-names.js';

interface Stored {
  row: CatalogueRow;
  model: TableModel;
}

interface Entry {
  at: string;
  model: TableModel;
  old: Stored | null;
  physical: string;
  recreate: boolean;
  id: number;
}

interface Phases {
  dropObjects: Step[];
  dropTables: Step[];
  tables: Step[];
  objects: Step[];
  foreignKeys: Step[];
}

export interface AppliedTable {
  row: CatalogueRow;
  created: boolean;
}

/** JSON with sorted keys: stored jsonb comes back with its keys reordered. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
const sameJson = (a: unknown, b: unknown) => canonical(a) === canonical(b);

async function checkLanguages(client: pg.PoolClient, models: TableModel[], errs: FieldErrors): Promise<void> {
  const langs = [...new Set(models.flatMap((m) => (m.search ? [m.search.language] : [])))];
  if (!langs.length) return;
  const { rows } = await client.query<{ cfgname: string }>('SELECT cfgname FROM pg_ts_config WHERE cfgname = ANY($1::text[])', [langs]);
  const known = new Set(rows.map((r) => r.cfgname));
  models.forEach((m, i) => {
    if (m.search && !known.has(m.search.language)) {
      (errs[`resources[${i}].schema.search_language`] ??= []).push(`Unknown text-search configuration "${m.search.language}".`);
    }
  });
}

/** Physical names of new flat tables must be free in the site schema (catalogue and database). */
async function checkPhysicalNames(
  client: pg.PoolClient,
  schema: string,
  siteId: number,
  entries: Entry[],
  errs: FieldErrors,
): Promise<void> {
  const fresh = entries.filter((e) => e.model.provider === 'flat_table' && e.physical !== e.old?.row.physicalName);
  if (!fresh.length) return;
  const names = fresh.map((e) => e.physical);
  const taken = new Set(await catalogueRepository.physicalTaken(client, siteId, names));
  names.forEach((n, i) => {
    if (names.indexOf(n) !== i) (errs[`${fresh[i].at}.name`] ??= []).push(`Another table of this package has the database name "${n}".`);
  });
  const { rows } = await client.query<{ relname: string }>(
    'SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2::text[])',
    [schema, names],
  );
  for (const r of rows) taken.add(r.relname);
  for (const e of fresh)
    if (taken.has(e.physical)) (errs[`${e.at}.name`] ??= []).push(`The database name "${e.physical}" is already used in this site.`);
}

/**
 * The site schema normally exists since the site was created; sites made some other way get
 * it on their first table. Creation is serialized per site: two apps' first tables may race.
 */
async function ensureSiteSchema(client: pg.PoolClient, schema: string, siteId: number): Promise<void> {
  const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (rowCount) return;
  await client.query('SELECT pg_advisory_xact_lock($1, $2)', [SITE_SCHEMA_LOCK, siteId]);
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteSchema(schema)}`);
}

function planEntries(app: AppRow, models: TableModel[], existing: Map<string, Stored>, allowDataLoss: boolean, errs: FieldErrors): Entry[] {
  const entries = models.map((model, i): Entry => {
    const at = `resources[${i}]`;
    const old = existing.get(model.name) ?? null;
    const recreate = old !== null && (old.model.provider !== model.provider || keyChanged(old.model, model));
    let physical: string | null = model.provider === 'jsonb' ? jsonbStoreName(app.id) : null;
    if (!physical) physical = old?.row.provider === 'flat_table' ? old.row.physicalName : physicalNameFor(app.slug, model.name);
    if (!physical) (errs[`${at}.name`] ??= []).push(`The database name "${app.slug}_${model.name}" would be longer than 63 bytes.`);
    if (old && !allowDataLoss) Object.assign(errs, destructiveErrors(at, old.model, model));
    return { at, model, old, physical: physical ?? '', recreate, id: old?.row.id ?? 0 };
  });
  // A re-created table loses the foreign keys pointing at it: only tables of this package re-add theirs.
  const inPackage = new Set(models.map((m) => m.name));
  for (const e of entries.filter((x) => x.recreate)) {
    const users = [...existing.values()].filter(
      (s) => !inPackage.has(s.model.name) && s.model.foreignKeys.some((fk) => fk.reference.resource === e.model.name),
    );
    if (users.length)
      (errs[`${e.at}.schema.primaryKey`] ??= []).push(
        `Referenced by ${users.map((u) => `"${u.model.name}"`).join(', ')}: resubmit them in the same package or delete them first.`,
      );
  }
  return entries;
}

function objectsOf(schema: string, e: Pick<Entry, 'physical' | 'id'>, model: TableModel, physicalOf: (n: string) => string): DdlObject[] {
  if (model.provider === 'jsonb')
    return jsonbObjects(constraintScope({ provider: 'jsonb', physicalName: e.physical, id: e.id }), e.id, model);
  return flatObjects(schema, e.physical, model, physicalOf);
}

function addAll(p: Phases, schema: string, table: string, at: string, objs: DdlObject[]): void {
  for (const o of objs)
    (o.target !== undefined ? p.foreignKeys : p.objects).push({ sql: addObjectSql(schema, table, o), at: objectPath(at, o) });
}

function planDdl(schema: string, app: AppRow, entries: Entry[], existing: Map<string, Stored>): Phases {
  const p: Phases = { dropObjects: [], dropTables: [], tables: [], objects: [], foreignKeys: [] };
  const byName = new Map(entries.map((e) => [e.model.name, e]));
  const physicalOf = (n: string) => byName.get(n)?.physical ?? existing.get(n)!.row.physicalName;
  const oldPhysicalOf = (n: string) => existing.get(n)?.row.physicalName ?? physicalOf(n);
  const recreated = new Set(entries.filter((e) => e.recreate).map((e) => e.model.name));
  if (entries.some((e) => e.model.provider === 'jsonb'))
    p.tables.push(...createStoreSql(schema, app.id).map((sql) => ({ sql, at: 'resources' })));
  for (const e of entries) {
    const { model, old, at } = e;
    if (old && !e.recreate) {
      const { removed, retyped } = fieldChanges(old.model, model);
      const changed = new Set([...removed, ...retyped].map((f) => f.name));
      const searchChanged = !sameJson(old.model.search, model.search);
      const touched = (o: DdlObject) =>
        o.fields.some((f) => changed.has(f)) || (o.search === true && searchChanged) || (o.target !== undefined && recreated.has(o.target));
      const oldObjs = objectsOf(schema, { physical: old.row.physicalName, id: e.id }, old.model, oldPhysicalOf);
      const diff = diffObjects(schema, e.physical, oldObjs, objectsOf(schema, e, model, physicalOf), touched, at);
      p.dropObjects.push(...diff.drops);
      for (const a of diff.adds) (a.fk ? p.foreignKeys : p.objects).push(a.step);
      if (model.provider === 'flat_table') p.tables.push(...flatColumnSteps(schema, e.physical, old.model, model, at));
      else p.tables.push(...jsonbDataSteps(schema, e.physical, e.id, old.model, model, at));
      continue;
    }
    if (old) {
      // Re-created: its foreign keys and the package's keys pointing at it go with the table.
      const oldObjs = objectsOf(schema, { physical: old.row.physicalName, id: e.id }, old.model, oldPhysicalOf);
      p.dropObjects.push(...oldObjs.map((o) => ({ sql: dropObjectSql(schema, old.row.physicalName, o), at })));
      const t = qualified(schema, old.row.physicalName);
      p.dropTables.push({
        sql: old.row.provider === 'jsonb' ? `DELETE FROM ${t} WHERE "table_id" = ${Number(e.id)}` : `DROP TABLE ${t}`,
        at,
      });
    }
    if (model.provider === 'flat_table') p.tables.push({ sql: createTableSql(schema, e.physical, model), at: `${at}.name` });
    addAll(p, schema, e.physical, at, objectsOf(schema, e, model, physicalOf));
  }
  return p;
}

/** Everything checkable before any DDL: references, languages, names, destructive changes. */
async function validate(client: pg.PoolClient, app: AppRow, schema: string, models: TableModel[], allowDataLoss: boolean) {
  const rows = await catalogueRepository.listForApp(client, app.id);
  const existing = new Map(rows.map((r) => [r.name, { row: r, model: modelFromStored(r.name, r.provider, r.description, r.schema) }]));
  const inPackage = new Map(models.map((m) => [m.name, m]));
  const errs: FieldErrors = {};
  models.forEach((m, i) => checkReferences(m, (n) => inPackage.get(n) ?? existing.get(n)?.model, `resources[${i}]`, errs));
  await checkLanguages(client, models, errs);
  const entries = planEntries(app, models, existing, allowDataLoss, errs);
  await checkPhysicalNames(client, schema, app.siteId, entries, errs);
  if (Object.keys(errs).length) throw dataErrors.validation(errs, 'Invalid data package.');
  return { entries, existing };
}

/** Catalogue rows after the DDL: new rows as inserted, changed ones updated (version + 1). */
async function recordResults(client: pg.PoolClient, entries: Entry[], inserted: Map<string, CatalogueRow>): Promise<AppliedTable[]> {
  const out: AppliedTable[] = [];
  for (const e of entries) {
    const stored = normalizeSchema(e.model);
    const fresh = inserted.get(e.model.name);
    if (fresh) out.push({ row: fresh, created: true });
    else if (
      sameJson(e.old!.row.schema, stored) &&
      e.old!.row.provider === e.model.provider &&
      e.old!.row.description === e.model.description
    ) {
      out.push({ row: e.old!.row, created: false });
    } else {
      const row = await catalogueRepository.update(client, e.id, {
        physicalName: e.physical,
        provider: e.model.provider,
        description: e.model.description,
        schema: stored,
      });
      out.push({ row, created: false });
    }
  }
  return out;
}

const MAX_DEPTH = 64;

/** Why a package cannot be stored as text and jsonb at all: NUL characters, absurd nesting. */
function textProblem(v: unknown, depth = 0): string | null {
  if (typeof v === 'string') return v.includes('\u0000') ? 'Text must not contain NUL (\\u0000) characters.' : null;
  if (v === null || typeof v !== 'object') return null;
  if (depth > MAX_DEPTH) return `Values must not nest deeper than ${MAX_DEPTH} levels.`;
  for (const [k, x] of Object.entries(v)) {
    const p = k.includes('\u0000') ? 'Text must not contain NUL (\\u0000) characters.' : textProblem(x, depth + 1);
    if (p) return p;
  }
  return null;
}

/** `fn` in a transaction on its own connection; any error rolls back. */
export async function inTransaction<T>(ctx: RequestContext, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(ctx.platform.pool, fn);
}

/**
 * Validates and applies a package for `app` (caller checked data:write). All or nothing:
 * any error rolls everything back. Returns the catalogue rows in package order.
 */
export async function applyPackage(
  ctx: RequestContext,
  app: AppRow,
  schema: string,
  body: unknown,
  allowDataLoss: boolean,
): Promise<AppliedTable[]> {
  // PostgreSQL text and jsonb cannot hold NUL, and deep values exhaust serializers: refuse here.
  const problem = textProblem(body);
  if (problem) throw dataErrors.validation({ resources: [problem] }, 'Invalid data package.');
  const models = parsePackage(body);
  return inTransaction(ctx, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [SCHEMA_LOCK, app.id]);
    await ensureSiteSchema(client, schema, app.siteId);
    const { entries, existing } = await validate(client, app, schema, models, allowDataLoss);
    // New tables get their catalogue ids first: jsonb index names include them.
    const inserted = new Map<string, CatalogueRow>();
    for (const e of entries.filter((x) => !x.old)) {
      const row = await catalogueRepository.insert(client, {
        siteId: app.siteId,
        appId: app.id,
        name: e.model.name,
        physicalName: e.physical,
        provider: e.model.provider,
        description: e.model.description,
        schema: normalizeSchema(e.model),
        createdById: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
      });
      e.id = row.id;
      inserted.set(row.name, row);
    }
    const p = planDdl(schema, app, entries, existing);
    for (const steps of [p.dropObjects, p.dropTables, p.tables, p.objects, p.foreignKeys]) await runSteps(client, steps);
    return recordResults(client, entries, inserted);
  });
}
