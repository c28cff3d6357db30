// Deterministic names of the database objects behind a datatable. Constraint and index names
// are short hashes of the table's scope and fields, so a database error that names a
// constraint maps back to the field without any stored mapping (records' error translation).
import crypto from 'node:crypto';
import type { DataTable } from '../model/table-model.js';

export type ConstraintKind = 'pk' | 'uq' | 'ck' | 'fk' | 'ix';

/** The jsonb provider's store: one table per app in the site schema. */
export const jsonbStoreName = (appId: number): string => `_jsonb_app_${appId}`;

/**
 * What constraint names hash: the physical table for flat_table; the store plus the table id
 * for jsonb (every jsonb table of an app shares one store, and index names are per schema).
 */
export function constraintScope(table: Pick<DataTable, 'provider' | 'physicalName' | 'id'>): string {
  return table.provider === 'jsonb' ? `${table.physicalName}#${table.id}` : table.physicalName;
}

/** `uq_1a2b3c4d5e6f`: kind and 12 hex digits of sha1(scope, fields); at most 15 bytes. */
export function constraintName(kind: ConstraintKind, scope: string, fields: readonly string[]): string {
  const h = crypto
    .createHash('sha1')
    .update(`${scope}\u0000${fields.join('\u0000')}`)
    .digest('hex');
  return `${kind}_${h.slice(0, 12)}`;
}

/**
 * The field (or, for a composite key or foreign key, the fields joined by `,`) that a
 * constraint of this table guards; null when the name is none of the table's constraints.
 */
export function fieldOfConstraint(table: Pick<DataTable, 'provider' | 'physicalName' | 'id' | 'model'>, name: string): string | null {
  const scope = constraintScope(table);
  const kind = name.slice(0, 2) as ConstraintKind;
  const model = table.model;
  if (kind === 'pk' && constraintName('pk', scope, model.primaryKey) === name) return model.primaryKey.join(',');
  if (kind === 'fk' || kind === 'ix') {
    for (const fk of model.foreignKeys) if (constraintName(kind, scope, fk.fields) === name) return fk.fields.join(',');
  }
  if (kind === 'uq' || kind === 'ck' || kind === 'ix') {
    for (const f of model.fields) if (constraintName(kind, scope, [f.name]) === name) return f.name;
  }
  return null;
}

/** Namespace of the transaction advisory locks that serialize schema changes of one app. */
export const SCHEMA_LOCK = 727_300_001;
/** Namespace of the lock that serializes creating a site's schema on its first table. */
export const SITE_SCHEMA_LOCK = 727_300_002;
