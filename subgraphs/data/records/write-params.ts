// Query parameters of record writes shared by REST and GraphQL: soft-delete controls, the
// `filter` JSON object, the `ids` list.
import { param, type Query } from '../../core/listing.js';
import { dataErrors } from '../data-errors.js';
import { parseDeleted } from '../query/list-params.js';
import type { DeleteOptions } from './record-write.service.js';

function flag(query: Query, name: string): boolean | undefined {
  const raw = param(query, name);
  if (raw === undefined || raw === '') return undefined;
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw dataErrors.invalidParam(name, `"${raw.slice(0, 40)}" is not true or false.`);
}

/**
 * Soft-delete controls of a DELETE. `hard_delete=true` alone also reaches soft-deleted
 * records (the seed's "record live or soft-deleted → removed"); the flags narrow it.
 */
export function deleteOptions(query: Query): DeleteOptions {
  const hard = flag(query, 'hard_delete') === true;
  const explicit = query.include_deleted !== undefined || query.only_deleted !== undefined;
  return { hard, deleted: hard && !explicit ? 'include' : parseDeleted(query) };
}

/** The `filter` parameter: a JSON object of filter keys. */
export function parseFilterParam(raw: unknown, name = 'filter'): Array<[string, unknown]> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw dataErrors.invalidParam(name, 'Must be a JSON object of filters.');
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw dataErrors.invalidParam(name, 'Must be a JSON object of filters.');
  return Object.entries(value as Record<string, unknown>);
}

/** `ids=a,b` or repeated `ids=` (composite keys, which contain commas, must be repeated). */
export function idList(query: Query): string[] {
  const v = query.ids;
  const list = Array.isArray(v) ? v : v === undefined ? [] : v.split(',');
  return list.map((s) => s.trim()).filter((s) => s !== '');
}
