// A parsed template made ready for one engine: compiled with the engine's parameter markers
// and checked by the engine's grammar. The result says which placeholder each bound value is.
import { analyticsErrors } from '../analytics-errors.js';
import type { Engine } from '../engines/connector.js';
import { checkClickhouse } from './clickhouse-check.js';
import { checkMysql } from './mysql-check.js';
import { checkPostgres, type InternalScope } from './pg-check.js';
import { compileSearch } from './search-template.js';
import { compileSql, parseTemplate, type ParsedTemplate } from './template.js';

export interface PreparedQuery {
  engine: Engine;
  /** The text sent to the engine (SQL with markers, or the search body's JSON template). */
  text: string;
  /** Placeholder index of each bound value, in order. */
  slots: number[];
  /** ClickHouse: offsets of the markers in `text`. */
  markers?: number[];
}

export function prepareQuery(engine: Engine, t: ParsedTemplate, scope?: InternalScope): PreparedQuery {
  switch (engine) {
    case 'internal':
    case 'postgresql':
    case 'redshift': {
      const compiled = compileSql(t, 'dollar');
      return { engine, text: checkPostgres(compiled, engine === 'internal' ? scope : undefined), slots: compiled.slots };
    }
    case 'mysql': {
      const compiled = compileSql(t, 'question');
      return { engine, text: checkMysql(compiled, 'MariaDB'), slots: compiled.slots };
    }
    case 'clickhouse': {
      const compiled = compileSql(t, 'question');
      return { engine, text: compiled.text, slots: compiled.slots, markers: checkClickhouse(compiled) };
    }
    case 'elasticsearch':
      return { engine, text: compileSearch(t), slots: t.placeholders.map((_, i) => i) };
    default:
      throw analyticsErrors.secretResolution('Driver not supported.', { engine });
  }
}

const CACHE_SIZE = 1000;
const cache = new Map<string, { template: ParsedTemplate; prepared: PreparedQuery }>();

/**
 * parseTemplate + prepareQuery, remembered by engine, text and (internal) schema and table
 * names: a saved query is parsed and checked once per process, not on every execution.
 * Errors are not remembered. Oldest entries go first past CACHE_SIZE.
 */
export function preparedFor(engine: Engine, text: string, scope?: InternalScope): { template: ParsedTemplate; prepared: PreparedQuery } {
  const key = `${engine}\u0000${scope ? `${scope.schema}\u0000${JSON.stringify([...scope.tables].sort())}` : ''}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const template = parseTemplate(text);
  const entry = { template, prepared: prepareQuery(engine, template, scope) };
  cache.set(key, entry);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return entry;
}
