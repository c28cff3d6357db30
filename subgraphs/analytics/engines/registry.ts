// One pooled client per connection secret and process, made on first use and closed when the
// secret's value changes (its fingerprint differs) or the platform closes.
import crypto from 'node:crypto';
import type { Platform } from '../../core/context.js';
import { analyticsErrors } from '../analytics-errors.js';
import type { Connector, Engine } from './connector.js';
import { postgresConnector, type SqlConnection } from './postgres.js';
import type { SearchConnection } from './search.js';

interface Entry {
  fingerprint: string;
  connector: Connector;
}

const connectors = new WeakMap<Platform, Map<string, Entry>>();

const fingerprintOf = (engine: Engine, value: unknown) =>
  crypto.createHash('sha256').update(engine).update(JSON.stringify(value)).digest('hex');

export function connectorFor(platform: Platform, cacheKey: string, engine: Engine, value: unknown): Connector {
  let map = connectors.get(platform);
  if (!map) connectors.set(platform, (map = new Map()));
  const fingerprint = fingerprintOf(engine, value);
  const known = map.get(cacheKey);
  if (known?.fingerprint === fingerprint) return known.connector;
  if (known) void known.connector.close().catch(() => undefined);
  const connector = makeConnector(platform, engine, value);
  map.set(cacheKey, { fingerprint, connector });
  return connector;
}

/** Closes every connector of the platform (at shutdown). */
export async function closeConnectors(platform: Platform): Promise<void> {
  const map = connectors.get(platform);
  if (!map) return;
  connectors.delete(platform);
  await Promise.all([...map.values()].map((e) => e.connector.close().catch(() => undefined)));
}

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 1000;
const port = (v: unknown, fallback: number): number | null =>
  v === undefined || v === null ? fallback : Number.isInteger(v) && (v as number) > 0 && (v as number) < 65536 ? (v as number) : null;

function sqlConnection(value: unknown, defaultPort: number): SqlConnection {
  const v = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const p = port(v.port, defaultPort);
  const bad = ['host', 'database', 'username'].filter((k) => !str(v[k]));
  if (typeof v.password !== 'string') bad.push('password');
  if (p === null) bad.push('port');
  if (bad.length) throw analyticsErrors.secretResolution('The connection secret is missing fields or has invalid ones.', { fields: bad });
  return {
    host: v.host as string,
    port: p!,
    database: v.database as string,
    username: v.username as string,
    password: v.password as string,
  };
}

/**
 * A connector whose driver is imported on its first query: the MySQL, ClickHouse and
 * Elasticsearch clients (and their memory) stay out of processes whose tenants never use them.
 */
function lazyConnector(load: () => Promise<Connector>): Connector {
  let made: Promise<Connector> | null = null;
  return {
    run: (req) => (made ??= load()).then((c) => c.run(req)),
    close: async () => {
      const c = await made?.catch(() => null);
      await c?.close();
    },
  };
}

function makeConnector(platform: Platform, engine: Engine, value: unknown): Connector {
  const timeout = platform.config.analyticsTimeoutMs;
  switch (engine) {
    case 'postgresql':
      return postgresConnector(sqlConnection(value, 5432), timeout);
    case 'redshift':
      return postgresConnector(sqlConnection(value, 5439), timeout, true);
    case 'mysql': {
      const c = sqlConnection(value, 3306);
      return lazyConnector(async () => (await import('./mysql.js')).mysqlConnector(c, timeout));
    }
    case 'clickhouse': {
      const v = objectOf(value);
      const secure = v.secure === undefined ? true : v.secure === true;
      const c = { ...sqlConnection(value, 8443), secure };
      return lazyConnector(async () => (await import('./clickhouse.js')).clickhouseConnector(c, timeout));
    }
    case 'elasticsearch': {
      const c = searchConnection(value);
      return lazyConnector(async () => (await import('./search.js')).searchConnector(c));
    }
    default:
      throw analyticsErrors.secretResolution('Driver not supported.', { engine });
  }
}

const objectOf = (value: unknown): Record<string, unknown> =>
  (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>;

function searchConnection(value: unknown): SearchConnection {
  const v = objectOf(value);
  const bad: string[] = [];
  let url: URL | null = null;
  try {
    url = str(v.host) ? new URL(/^https?:\/\//.test(v.host) ? v.host : `http://${v.host}`) : null;
  } catch {
    url = null;
  }
  if (!url) bad.push('host');
  if (!str(v.index)) bad.push('index');
  const p = port(v.port, url?.port ? Number(url.port) : 9200);
  if (p === null) bad.push('port');
  const max =
    v.max_result_rows === undefined
      ? 10_000
      : Number.isInteger(v.max_result_rows) && (v.max_result_rows as number) > 0
        ? (v.max_result_rows as number)
        : null;
  if (max === null) bad.push('max_result_rows');
  const headers =
    v.headers && typeof v.headers === 'object' && !Array.isArray(v.headers) ? (v.headers as Record<string, string>) : undefined;
  if (bad.length) throw analyticsErrors.secretResolution('The connection secret is missing fields or has invalid ones.', { fields: bad });
  url!.port = String(p);
  return {
    url: url!.origin,
    index: v.index as string,
    username: str(v.username) ? v.username : undefined,
    password: typeof v.password === 'string' ? v.password : undefined,
    apiKey: str(v.api_key) ? v.api_key : undefined,
    headers,
    maxResultRows: max!,
  };
}
