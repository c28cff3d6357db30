// Typed inputs of record reads (issue 9 item 5): REST adapters parse the query string once
// into them (recordListFromQuery, recordReadFromQuery), GraphQL resolvers map their arguments
// straight to them; the read service checks them against the table's model, so both
// transports are held to the same rules and answer the same errors (named after the REST
// parameters). What only the table's model can tell apart stays as given: field-named
// parameters are filters or a populated path's options (`author_limit`), the `filter`
// object's keys are fields, operators and relationships.
import { param, type Query } from '../../core/listing.js';
import { dataErrors } from '../data-errors.js';
import { filterEntries } from './filter.js';
import type { DeletedMode } from './filter-model.js';
import {
  deletedModeOf,
  deletedFlagsFromQuery,
  pagingFromQuery,
  refuseLater,
  sortFromQuery,
  type PagingInput,
  type SortInput,
} from './list-params.js';

/** The filters of a request. */
export interface RecordFilterInput {
  /**
   * Conditions named after the table's fields as a query string gives them (`title=x`,
   * `views__gte=3`, `author.name=y`), in order; a populated path's options (`author_limit=5`)
   * come the same way and are told apart by the table's relationships.
   */
  params?: ReadonlyArray<readonly [string, string]>;
  /** The `filter` object: field keys (with operators, relationships, `or`/`and`) to JSON values. */
  where?: unknown;
}

/** Relationship expansion (`populate=author,tags`), its options among `params`. */
export interface PopulateInput {
  populate?: string | null;
}

/** A record list as both transports hand it to listRecords. */
export interface RecordListInput extends RecordFilterInput, PopulateInput, SortInput, PagingInput {
  search?: string | null;
  deleted?: DeletedMode;
}

/** One record read by key (findRecord, getRecord). */
export interface RecordReadInput extends PopulateInput {
  deleted?: DeletedMode;
  /** A populated path's options (`author_limit=5`). */
  params?: ReadonlyArray<readonly [string, string]>;
}

export const MAX_FILTER_LENGTH = 100_000;

/** The `filter` query parameter: JSON text (its value is checked as an object by the service). */
function filterJson(raw: string | undefined): unknown {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw.length > MAX_FILTER_LENGTH) throw dataErrors.invalidParam('filter', `At most ${MAX_FILTER_LENGTH} characters.`);
  try {
    return JSON.parse(raw);
  } catch {
    throw dataErrors.invalidParam('filter', 'Not valid JSON.');
  }
}

/** The filters of a REST query: field-named parameters and the `filter` JSON. */
export function filterInputFromQuery(query: Query): RecordFilterInput {
  return { params: filterEntries(query), where: filterJson(param(query, 'filter')) };
}

/** A REST record-list query as the typed input (hierarchy parameters refused: they have their own route). */
export function recordListFromQuery(query: Query): RecordListInput {
  refuseLater(query);
  return {
    ...filterInputFromQuery(query),
    ...sortFromQuery(query),
    ...pagingFromQuery(query),
    search: param(query, 'search'),
    deleted: deletedModeOf(deletedFlagsFromQuery(query)),
    populate: param(query, 'populate'),
  };
}

/** A REST read by key: `include_deleted`/`only_deleted`, `populate` and its options. */
export function recordReadFromQuery(query: Query): RecordReadInput {
  return { deleted: deletedModeOf(deletedFlagsFromQuery(query)), populate: param(query, 'populate'), params: filterEntries(query) };
}

/**
 * The `filter` object's entries: 400 unless it is a JSON object, or when it is larger than a
 * `filter` query parameter may be.
 */
export function whereEntries(where: unknown): Array<[string, unknown]> {
  if (where === undefined) return [];
  if (where === null || typeof where !== 'object' || Array.isArray(where)) {
    throw dataErrors.invalidParam('filter', 'Expected a JSON object of filters.');
  }
  if (JSON.stringify(where).length > MAX_FILTER_LENGTH) throw dataErrors.invalidParam('filter', `At most ${MAX_FILTER_LENGTH} characters.`);
  return Object.entries(where);
}

/** The options of populated paths and `populate` as the query the populate planner reads. */
export function populateQuery(input: PopulateInput & { params?: ReadonlyArray<readonly [string, string]> }): Query {
  const query: Record<string, string[]> = {};
  for (const [k, v] of input.params ?? []) (query[k] ??= []).push(v);
  const out: Query = { ...query };
  if (input.populate != null) out.populate = input.populate;
  return out;
}
