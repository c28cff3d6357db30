// `populate` (seed 3 "Population", DECISIONS §6): `populate=author,comments`, `populate=*`,
// nested `comments.user` up to DATA_SERVICE_MAX_POPULATE_DEPTH levels, with per-relationship
// `<path>_sort`, `<path>_order`, `<path>_limit`, `<path>_offset`. A forward relationship
// replaces the id with the record (null when the id is null or the record is gone); reverse
// and many-to-many give arrays. Cost: one batched statement per relationship and level.
import type { RequestContext } from '../../core/context.js';
import type { Query } from '../../core/listing.js';
import { param } from '../../core/listing.js';
import { dataErrors } from '../data-errors.js';
import type { DataRecord } from '../model/codec.js';
import type { DataTable } from '../model/table-model.js';
import { fieldOf } from '../model/table-model.js';
import { DEFAULT_RELATED_LIMIT, fetchRelated, keyText, MAX_RELATED_LIMIT, type RelatedOptions, type RelatedSort } from './related-fetch.js';
import type { Relationship, RelationshipModel } from './relationship-model.js';

export interface PopulateNode {
  rel: Relationship;
  /** The dotted path, as written in the request and in option names. */
  path: string;
  opts: RelatedOptions;
  children: PopulateNode[];
}

export interface PopulatePlan {
  nodes: PopulateNode[];
  /** Query parameters read as relationship options (not filters). */
  consumed: Set<string>;
}

const MAX_PATHS = 50;
const OPTION_SUFFIXES = ['_sort', '_order', '_limit', '_offset'] as const;

/** `<path>_sort=f1,-f2` with `<path>_order=asc|desc` (one, or one per field). */
export function relatedSort(
  target: DataTable,
  key: string,
  raw: string | undefined,
  orderKey: string,
  orderRaw: string | undefined,
): RelatedSort[] {
  if (raw === undefined || raw.trim() === '') return [];
  const names = raw.split(',').map((s) => s.trim());
  const orders = (orderRaw ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (orders.length > 1 && orders.length !== names.length)
    throw dataErrors.invalidParam(orderKey, 'Give one direction for all fields or one per field.');
  return names.map((n, i) => {
    const minus = n.startsWith('-');
    const name = minus ? n.slice(1) : n;
    const field = fieldOf(target.model, name);
    if (!field) throw dataErrors.invalidParam(key, `Unknown field "${name.slice(0, 100)}" of table "${target.name}".`);
    const dir = orders.length === 0 ? 'asc' : orders[orders.length === 1 ? 0 : i];
    if (dir !== 'asc' && dir !== 'desc') throw dataErrors.invalidParam(orderKey, `"${dir.slice(0, 20)}" is not asc or desc.`);
    return { field, desc: minus !== (dir === 'desc') };
  });
}

function wholeNumber(key: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const t = raw.trim();
  if (!/^\d{1,9}$/.test(t) || Number(t) < min || Number(t) > max)
    throw dataErrors.invalidParam(key, `"${t.slice(0, 20)}" is not a whole number from ${min} to ${max}.`);
  return Number(t);
}

/** Options of one populated path from the query (`consumed` collects the keys read). */
export function relatedOptions(target: DataTable, path: string, query: Query, consumed: Set<string>): RelatedOptions {
  for (const s of OPTION_SUFFIXES) if (query[path + s] !== undefined) consumed.add(path + s);
  return {
    sort: relatedSort(target, path + '_sort', param(query, path + '_sort'), path + '_order', param(query, path + '_order')),
    limit: wholeNumber(path + '_limit', param(query, path + '_limit'), 0, MAX_RELATED_LIMIT) ?? DEFAULT_RELATED_LIMIT,
    offset: wholeNumber(path + '_offset', param(query, path + '_offset'), 0, 1_000_000_000) ?? 0,
  };
}

/** The populate tree of a request; 400 naming an unknown relationship or a path too deep. */
export function parsePopulate(table: DataTable, model: RelationshipModel, query: Query, maxDepth: number): PopulatePlan {
  const consumed = new Set<string>();
  const raw = param(query, 'populate');
  if (raw === undefined || raw.trim() === '') return { nodes: [], consumed };
  const paths = raw.split(',').map((s) => s.trim());
  if (paths.length > MAX_PATHS) throw dataErrors.invalidParam('populate', `At most ${MAX_PATHS} paths.`);
  const roots: PopulateNode[] = [];
  const insert = (nodes: PopulateNode[], from: DataTable, segs: string[], prefix: string) => {
    if (segs.length === 0) return;
    const [head, ...rest] = segs;
    const rels = model.get(from.name) ?? new Map<string, Relationship>();
    const chosen = head === '*' ? [...rels.values()] : [rels.get(head)];
    if (chosen[0] === undefined)
      throw dataErrors.invalidParam('populate', `Unknown relationship "${head.slice(0, 100)}" of table "${from.name}".`);
    for (const rel of chosen as Relationship[]) {
      const path = prefix ? `${prefix}.${rel.name}` : rel.name;
      let node = nodes.find((n) => n.rel.name === rel.name);
      if (!node) nodes.push((node = { rel, path, opts: relatedOptions(rel.target, path, query, consumed), children: [] }));
      insert(node.children, rel.target, rest, path);
    }
  };
  for (const path of paths) {
    const segs = path.split('.');
    if (segs.some((s) => s === '')) throw dataErrors.invalidParam('populate', `Empty segment in "${path.slice(0, 100)}".`);
    if (segs.length > maxDepth) throw dataErrors.invalidParam('populate', `At most ${maxDepth} levels ("${path.slice(0, 100)}").`);
    insert(roots, table, segs, '');
  }
  return { nodes: roots, consumed };
}

/** Fills the populated relationships of `records` (of `table`) in place: one statement per node. */
export async function populate(ctx: RequestContext, records: DataRecord[], nodes: PopulateNode[]): Promise<void> {
  if (records.length === 0 || nodes.length === 0) return;
  // Keys first, for every node: attaching a forward record replaces the id another node may read.
  const keysOf = nodes.map((n) => records.map((r) => r[n.rel.fromField.name]));
  const found = await Promise.all(nodes.map((n, i) => fetchRelated(ctx, n.rel, keysOf[i], n.opts)));
  await Promise.all(nodes.map((n, i) => populate(ctx, [...found[i].values()].flat(), n.children)));
  nodes.forEach((n, i) => {
    records.forEach((r, j) => {
      const k = keyText(keysOf[i][j]);
      const related = k === null ? undefined : found[i].get(k);
      r[n.rel.name] = n.rel.kind === 'forward' ? (related?.[0] ?? null) : (related ?? []);
    });
  });
}
