// What resubmitting an existing table changes (docs/data-service.md "Migrations"): the
// destructive changes that need allow_data_loss, and the DDL steps in three phases (drop
// objects, change columns, add objects) so a package's tables can be migrated together.
import type { FieldErrors } from '../../core/errors.js';
import { columnTypeOf } from '../model/field-parse.js';
import { SEARCH_VECTOR, type FieldModel, type TableModel } from '../model/table-model.js';
import { ident, qualified } from '../sql.js';
import { addObjectSql, columnDef, defaultSql, dropObjectSql, literal, searchColumnDef, type DdlObject } from './table-ddl.js';

/** One DDL statement; `at` names what a failure is about (a package path). */
export interface Step {
  sql: string;
  at: string;
  /** Run instead when `sql` fails (a cast PostgreSQL cannot do): under a savepoint. */
  fallback?: string[];
}

export interface ObjectDiff {
  drops: Step[];
  adds: { step: Step; fk: boolean }[];
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The primary key or its column types changed: the table must be re-created. */
export function keyChanged(oldM: TableModel, newM: TableModel): boolean {
  if (!sameJson(oldM.primaryKey, newM.primaryKey)) return true;
  return newM.primaryKey.some((k) => {
    const a = oldM.fields.find((f) => f.name === k)!;
    const b = newM.fields.find((f) => f.name === k)!;
    return columnTypeOf(a) !== columnTypeOf(b) || a.generated !== b.generated;
  });
}

/** Removed and retyped fields (by column type for flat_table, by JSON type for jsonb). */
export function fieldChanges(oldM: TableModel, newM: TableModel): { removed: FieldModel[]; retyped: FieldModel[] } {
  const removed = oldM.fields.filter((f) => !newM.fields.some((n) => n.name === f.name));
  const retyped = newM.fields.filter((n) => {
    const o = oldM.fields.find((f) => f.name === n.name);
    if (!o) return false;
    return newM.provider === 'flat_table' ? columnTypeOf(o) !== columnTypeOf(n) : o.type !== n.type;
  });
  return { removed, retyped };
}

/** 400 details for changes that lose data, keyed by package paths. */
export function destructiveErrors(at: string, oldM: TableModel, newM: TableModel): FieldErrors {
  const errs: FieldErrors = {};
  const hint = 'Pass allow_data_loss=true to accept.';
  if (oldM.provider !== newM.provider)
    errs[`${at}.provider`] = [`Changing the provider re-creates the table and deletes its rows. ${hint}`];
  else if (keyChanged(oldM, newM))
    errs[`${at}.schema.primaryKey`] = [`Changing the primary key re-creates the table and deletes its rows. ${hint}`];
  else {
    const { removed, retyped } = fieldChanges(oldM, newM);
    if (removed.length) errs[`${at}.schema.fields`] = [`Removing ${removed.map((f) => `"${f.name}"`).join(', ')} deletes data. ${hint}`];
    for (const f of retyped) {
      const i = newM.fields.indexOf(f);
      errs[`${at}.schema.fields[${i}].type`] = [`Changing the type of "${f.name}" may lose data. ${hint}`];
    }
  }
  return errs;
}

/**
 * Objects to drop (no longer wanted, changed, on a changed column, or pointing at a re-created
 * table) and to add (wanted and not kept).
 */
export function diffObjects(
  schema: string,
  table: string,
  oldObjs: DdlObject[],
  newObjs: DdlObject[],
  touched: (o: DdlObject) => boolean,
  at: string,
): ObjectDiff {
  const kept = new Set<string>();
  const drops: Step[] = [];
  for (const o of oldObjs) {
    const n = newObjs.find((x) => x.name === o.name);
    if (n && n.def === o.def && !touched(o)) kept.add(o.name);
    else drops.push({ sql: dropObjectSql(schema, table, o), at: objectPath(at, o) });
  }
  const adds = newObjs
    .filter((o) => !kept.has(o.name))
    .map((o) => ({ step: { sql: addObjectSql(schema, table, o), at: objectPath(at, o) }, fk: o.target !== undefined }));
  return { drops, adds };
}

/** Where in the package an object's failure is reported. */
export function objectPath(at: string, o: DdlObject): string {
  if (o.target !== undefined) return `${at}.schema.foreignKeys`;
  if (o.search) return `${at}.schema.search_fields`;
  return o.fields.length === 1 ? `${at}.schema.fields.${o.fields[0]}` : `${at}.schema`;
}

const fieldAt = (at: string, m: TableModel, f: FieldModel) => `${at}.schema.fields[${m.fields.indexOf(f)}]`;

/** Column changes of a flat_table whose key and provider stay. */
export function flatColumnSteps(schema: string, physical: string, oldM: TableModel, newM: TableModel, at: string): Step[] {
  const t = qualified(schema, physical);
  const steps: Step[] = [];
  const { removed, retyped } = fieldChanges(oldM, newM);
  const searchChanged = !sameJson(oldM.search, newM.search);
  if (searchChanged && oldM.search)
    steps.push({ sql: `ALTER TABLE ${t} DROP COLUMN IF EXISTS ${ident(SEARCH_VECTOR)}`, at: `${at}.schema.search_fields` });
  for (const f of removed) steps.push({ sql: `ALTER TABLE ${t} DROP COLUMN ${ident(f.name)}`, at: `${at}.schema.fields` });
  for (const f of retyped) {
    const c = ident(f.name);
    const type = columnTypeOf(f);
    steps.push({
      sql: `ALTER TABLE ${t} ALTER COLUMN ${c} DROP DEFAULT, ALTER COLUMN ${c} TYPE ${type} USING ${c}::${type}`,
      at: fieldAt(at, newM, f),
      fallback: [`ALTER TABLE ${t} DROP COLUMN ${c}`, `ALTER TABLE ${t} ADD COLUMN ${columnDef(f)}`],
    });
  }
  for (const f of newM.fields) {
    const o = oldM.fields.find((x) => x.name === f.name);
    const fat = fieldAt(at, newM, f);
    if (!o) {
      steps.push({ sql: `ALTER TABLE ${t} ADD COLUMN ${columnDef(f)}`, at: fat });
      continue;
    }
    if (f.generated === 'identity') continue;
    const retypedNow = retyped.includes(f);
    const d = defaultSql(f);
    if (retypedNow || d !== defaultSql(o)) {
      steps.push({ sql: `ALTER TABLE ${t} ALTER COLUMN ${ident(f.name)} ${d ? `SET DEFAULT ${d}` : 'DROP DEFAULT'}`, at: fat });
    }
    if (retypedNow || f.nullable !== o.nullable) {
      steps.push({ sql: `ALTER TABLE ${t} ALTER COLUMN ${ident(f.name)} ${f.nullable ? 'DROP' : 'SET'} NOT NULL`, at: fat });
    }
  }
  if (searchChanged && newM.search)
    steps.push({ sql: `ALTER TABLE ${t} ADD COLUMN ${searchColumnDef(newM)}`, at: `${at}.schema.search_fields` });
  return steps;
}

/**
 * Data changes of a jsonb table whose key stays: removed and retyped fields are stripped;
 * fields new or newly required are filled with their default, or checked present (23502).
 */
export function jsonbDataSteps(schema: string, store: string, tableId: number, oldM: TableModel, newM: TableModel, at: string): Step[] {
  const t = qualified(schema, store);
  const mine = `"table_id" = ${Number(tableId)}`;
  const steps: Step[] = [];
  const { removed, retyped } = fieldChanges(oldM, newM);
  for (const f of [...removed, ...retyped]) {
    steps.push({
      sql: `UPDATE ${t} SET "data" = "data" - ${literal(f.name)} WHERE ${mine} AND "data" ? ${literal(f.name)}`,
      at: `${at}.schema.fields`,
    });
  }
  for (const f of newM.fields) {
    const o = oldM.fields.find((x) => x.name === f.name);
    const fresh = !o || retyped.includes(f);
    if (!fresh && (f.nullable || !o!.nullable)) continue;
    const missing = `${mine} AND coalesce("data"->${literal(f.name)}, 'null'::jsonb) = 'null'::jsonb`;
    const fat = fieldAt(at, newM, f);
    if (f.default !== undefined) {
      const v =
        f.default === 'now' ? `to_jsonb(${f.type === 'date' ? 'CURRENT_DATE' : 'now()'})` : `${literal(JSON.stringify(f.default))}::jsonb`;
      steps.push({ sql: `UPDATE ${t} SET "data" = "data" || jsonb_build_object(${literal(f.name)}, ${v}) WHERE ${missing}`, at: fat });
    } else if (!f.nullable) {
      steps.push({
        sql: `DO $do$ BEGIN IF EXISTS (SELECT 1 FROM ${t} WHERE ${missing}) THEN RAISE EXCEPTION 'missing value' USING ERRCODE = '23502'; END IF; END $do$`,
        at: fat,
      });
    }
  }
  return steps;
}
