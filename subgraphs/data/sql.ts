// Building blocks of the data service's SQL (ARCHITECTURE rule 8): identifiers come from a
// validated TableModel and are always quoted; values are always bound parameters.
import pg from 'pg';

/** A double-quoted identifier; names reaching here were validated by the schema parser. */
export function ident(name: string): string {
  if (name.length === 0 || name.includes('\u0000')) throw new Error(`Invalid identifier ${JSON.stringify(name)}`);
  return '"' + name.replace(/"/g, '""') + '"';
}

/** `"schema"."table"`. */
export const qualified = (schema: string, table: string): string => `${ident(schema)}.${ident(table)}`;

/** Collects bound values; `add` returns the placeholder (`$n`) of the value. */
export class Params {
  readonly values: unknown[] = [];
  constructor(first: unknown[] = []) {
    this.values.push(...first);
  }
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A piece of SQL with the values of its placeholders. */
export interface SqlText {
  text: string;
  values: unknown[];
}

// Record queries read with their own type parsers: bigint as a number (a string beyond 2^53),
// date and time as the text PostgreSQL prints (a JS Date would shift a date by the time zone).
const INT8 = 20;
const DATE = 1082;
const TIME = 1083;
const TIMESTAMPTZ = 1184;

function parseInt8(v: string): number | string {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
}

const baseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (v: string) => Date;

function parseTimestamptz(v: string): string {
  const d = baseTimestamptz(v);
  return d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : v;
}

/** Pass as `types` in a record query's config. */
export const RECORD_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format === 'binary') return pg.types.getTypeParser(oid, 'binary');
    if (oid === INT8) return parseInt8;
    if (oid === DATE || oid === TIME) return (v: string) => v;
    if (oid === TIMESTAMPTZ) return parseTimestamptz;
    return pg.types.getTypeParser(oid, 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};
