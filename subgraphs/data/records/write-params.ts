// Typed inputs of record writes shared by REST and GraphQL (issue 9 item 5): the records to
// write, the soft-delete flags and the filter of a filtered update or delete. The REST routes
// parse the query string and body into them (`…FromQuery`, recordsFromBody); the GraphQL
// resolvers map their arguments straight to them.
import { param, type Query } from '../../core/listing.js';
import { dataErrors } from '../data-errors.js';
import { deletedFlagsFromQuery, deletedModeOf, type DeletedFlags } from '../query/list-params.js';
import type { DeletedMode } from '../query/filter-model.js';

/** Which rows a PATCH/DELETE selection sees, and whether a DELETE removes rows. */
export interface SelectOptions {
  deleted: DeletedMode;
}
export interface DeleteOptions extends SelectOptions {
  hard: boolean;
}

/**
 * Records to create or upsert: one (`many: false`, a single item) or several (`many: true`,
 * all or nothing). Each item is checked against the table's schema by the service.
 */
export interface RecordsInput {
  records: readonly unknown[];
  many: boolean;
}

/** An upsert: the records, matched on `uniqueFields` (a unique field set of the table). */
export interface UpsertInput extends RecordsInput {
  uniqueFields: readonly string[];
}

/** The soft-delete controls of a DELETE. */
export interface DeleteFlags extends DeletedFlags {
  hardDelete?: boolean | null;
}

/** A REST body: an array is several records, anything else one. */
export function recordsFromBody(body: unknown): RecordsInput {
  return Array.isArray(body) ? { records: body, many: true } : { records: [body], many: false };
}

/** `unique_fields=a,b`. */
export function uniqueFieldsFromQuery(query: Query): string[] {
  return (param(query, 'unique_fields') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function flag(query: Query, name: string): boolean | undefined {
  const raw = param(query, name);
  if (raw === undefined || raw === '') return undefined;
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw dataErrors.invalidParam(name, `"${raw.slice(0, 40)}" is not true or false.`);
}

/**
 * Soft-delete controls as options. `hardDelete` alone also reaches soft-deleted records (the
 * seed's "record live or soft-deleted → removed"); the deleted flags, when given, narrow it.
 */
export function deleteOptionsOf(flags: DeleteFlags): DeleteOptions {
  const hard = flags.hardDelete === true;
  const explicit = flags.includeDeleted != null || flags.onlyDeleted != null;
  return { hard, deleted: hard && !explicit ? 'include' : deletedModeOf(flags) };
}

/** `hard_delete`, `include_deleted`, `only_deleted` of a REST DELETE. */
export function deleteFlagsFromQuery(query: Query): DeleteFlags {
  const hardDelete = flag(query, 'hard_delete');
  return { hardDelete, ...deletedFlagsFromQuery(query) };
}

/** A filter object's entries (the `filter` of a filtered update or delete): 400 unless it is an object. */
export function filterObjectEntries(value: unknown, name = 'filter'): Array<[string, unknown]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw dataErrors.invalidParam(name, 'Must be a JSON object of filters.');
  return Object.entries(value as Record<string, unknown>);
}

/** The `filter` query parameter: JSON text of a filter object. */
export function parseFilterParam(raw: string | undefined, name = 'filter'): Array<[string, unknown]> {
  let value: unknown;
  try {
    value = JSON.parse(raw ?? '');
  } catch {
    throw dataErrors.invalidParam(name, 'Must be a JSON object of filters.');
  }
  return filterObjectEntries(value, name);
}

/** `ids=a,b` or repeated `ids=` (composite keys, which contain commas, must be repeated). */
export function idList(query: Query): string[] {
  const v = query.ids;
  const list = Array.isArray(v) ? v : v === undefined ? [] : v.split(',');
  return list.map((s) => s.trim()).filter((s) => s !== '');
}
