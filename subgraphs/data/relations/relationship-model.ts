// The relationships between an app's datatables (DECISIONS §6 "Relationship names"), derived
// from their stored schemas only: forward (named by the foreign-key field), reverse (named by
// the referencing table, `{table}_by_{field}` when that table references this one through
// several fields) and many-to-many through a junction table (exactly two foreign keys and no
// other fields but its keys and timestamps; named by the far table). Every name, table and
// field used by populate, related filters and GraphQL comes from here, never from a request.
// Built once per set of table versions of an app and cached.
import type { DataTable, FieldModel } from '../model/table-model.js';
import { fieldOf } from '../model/table-model.js';

export type RelationshipKind = 'forward' | 'reverse' | 'many';

export interface Relationship {
  name: string;
  kind: RelationshipKind;
  /** The table the relationship starts from. */
  from: DataTable;
  /** The table it reaches. */
  target: DataTable;
  /**
   * forward: `from.fromField` holds `target.targetField`. reverse: `target.targetField` holds
   * `from.fromField`. many: `through.fromField` holds `from.fromField` and `through.targetField`
   * holds `target.targetField`.
   */
  fromField: FieldModel;
  targetField: FieldModel;
  through?: { table: DataTable; fromField: FieldModel; targetField: FieldModel };
}

/** Relationships of every table of one app: table name → relationship name → relationship. */
export type RelationshipModel = Map<string, Map<string, Relationship>>;

const TIMESTAMPS = new Set(['created_at', 'updated_at']);

interface Edge {
  table: DataTable;
  field: FieldModel;
  target: DataTable;
  targetField: FieldModel;
}

/** Single-field foreign keys of the app's tables whose ends exist (composite keys are not relationships). */
function edgesOf(tables: DataTable[]): Edge[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const out: Edge[] = [];
  for (const table of tables) {
    for (const fk of table.model.foreignKeys) {
      if (fk.fields.length !== 1 || fk.reference.fields.length !== 1) continue;
      const target = fk.reference.resource === '' ? table : byName.get(fk.reference.resource);
      const field = fieldOf(table.model, fk.fields[0]);
      const targetField = target ? fieldOf(target.model, fk.reference.fields[0]) : undefined;
      if (target && field && targetField) out.push({ table, field, target, targetField });
    }
  }
  return out;
}

/** A junction: exactly two foreign keys, every other field a key field or a timestamp. */
function isJunction(table: DataTable, edges: Edge[]): boolean {
  if (edges.length !== 2 || table.model.foreignKeys.length !== 2) return false;
  const allowed = new Set([...table.model.primaryKey, ...edges.map((e) => e.field.name), ...TIMESTAMPS]);
  return table.model.fields.every((f) => allowed.has(f.name));
}

export function buildRelationships(tables: DataTable[]): RelationshipModel {
  const model: RelationshipModel = new Map(tables.map((t) => [t.name, new Map()]));
  const edges = edgesOf(tables);
  const add = (r: Relationship) => {
    const rels = model.get(r.from.name)!;
    // A name never hides a field of the table (except the forward one it names) or another relationship.
    if (rels.has(r.name) || (r.kind !== 'forward' && fieldOf(r.from.model, r.name))) return false;
    rels.set(r.name, r);
    return true;
  };
  for (const e of edges)
    add({ name: e.field.name, kind: 'forward', from: e.table, target: e.target, fromField: e.field, targetField: e.targetField });
  for (const e of edges) {
    const twice = edges.filter((o) => o.table === e.table && o.target === e.target).length > 1;
    const plain = twice ? `${e.table.name}_by_${e.field.name}` : e.table.name;
    const rel: Relationship = {
      name: plain,
      kind: 'reverse',
      from: e.target,
      target: e.table,
      fromField: e.targetField,
      targetField: e.field,
    };
    if (!add(rel) && !twice) add({ ...rel, name: `${e.table.name}_by_${e.field.name}` });
  }
  for (const table of tables) {
    const own = edges.filter((e) => e.table === table);
    if (!isJunction(table, own)) continue;
    const [a, b] = own;
    for (const [near, far] of [
      [a, b],
      [b, a],
    ]) {
      const rel: Relationship = {
        name: far.target.name,
        kind: 'many',
        from: near.target,
        target: far.target,
        fromField: near.targetField,
        targetField: far.targetField,
        through: { table, fromField: near.field, targetField: far.field },
      };
      if (!add(rel)) add({ ...rel, name: `${far.target.name}_via_${table.name}` });
      if (a.target === b.target) break; // a self junction: one relationship
    }
  }
  return model;
}

const MAX_CACHED = 200;
const cache = new Map<string, RelationshipModel>();

/** The model of an app's tables, cached by their ids and versions (a schema change rebuilds it). */
export function relationshipsOf(tables: DataTable[]): RelationshipModel {
  const key = tables
    .map((t) => `${t.id}:${t.version}`)
    .sort()
    .join(',');
  let model = cache.get(key);
  if (!model) {
    model = buildRelationships(tables);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, model);
  }
  return model;
}
