// Executing a saved query (seed 2 "Execution safety", DECISIONS §10): the template is parsed,
// compiled with the engine's markers and checked by its grammar on every run; values are
// resolved server-side and bound; the run is logged under an execution_key with who, which
// engine, how long, how many rows and the outcome, never the values.
import crypto from 'node:crypto';
import type { RequestContext } from '../../core/context.js';
import { isAppError } from '../../core/errors.js';
import { pageRequest, type ListInput, type ListResult } from '../../core/listing.js';
import { outsideRequestScope } from '../../core/request-db.js';
import { physicalTableNames } from '../../data/data.api.js';
import { readConnectionSecret } from '../../secrets/secrets.api.js';
import { analyticsErrors } from '../analytics-errors.js';
import { isConnectionFailure, type Engine, type RunResult } from '../engines/connector.js';
import { runInternal } from '../engines/internal.js';
import { connectorFor } from '../engines/registry.js';
import { loadPgParser } from '../template/pg-check.js';
import { loadMysqlParser } from '../template/mysql-check.js';
import { preparedFor } from '../template/prepare.js';
import { parseParams, resolveValues, type Params } from '../template/values.js';
import { executionRepository, type ExecutionRow } from './query.repository.js';
import { engineOfType, loadQuery } from './query.service.js';
import { Lanes } from '../../core/lanes.js';

/** The rows of one run (at most ANALYTICS_MAX_ROWS, `truncated` when cut) and the key it is logged under. */
export interface ExecuteResult {
  rows: Record<string, unknown>[];
  truncated: boolean;
  executionKey: string;
}

/**
 * Executions in this process per site: at most ANALYTICS_MAX_CONCURRENT run at once (each holds
 * a database connection), the next ones wait in order (at most MAX_WAITING; beyond, 409), so one
 * site's burst never takes the pool from the others. docs/analytics.md "Concurrency".
 */
const MAX_WAITING = 64;
const lanesOf = new WeakMap<object, Lanes>();

function lanes(ctx: RequestContext): Lanes {
  let l = lanesOf.get(ctx.platform);
  if (!l) lanesOf.set(ctx.platform, (l = new Lanes(ctx.platform.config.analyticsMaxConcurrent, MAX_WAITING)));
  return l;
}

export async function executeQuery(ctx: RequestContext, appRef: string, slug: string, rawParams: unknown): Promise<ExecuteResult> {
  const { row, app, site } = await loadQuery(ctx, appRef, slug, 'analytics:execute');
  const params = parseParams(rawParams);
  return lanes(ctx).run(`site:${site.id}`, () => run(ctx, { row, app, site }, params), analyticsErrors.busy);
}

async function run(ctx: RequestContext, { row, app, site }: Awaited<ReturnType<typeof loadQuery>>, params: Params): Promise<ExecuteResult> {
  const executionKey = crypto.randomUUID();
  const started = process.hrtime.bigint();
  let engine: Engine = row.connectionType === 'internal' ? 'internal' : 'postgresql';
  let result: RunResult | null = null;
  let failure: unknown = null;
  let redact: string[] = [];
  try {
    await loadPgParser();
    let secret: Awaited<ReturnType<typeof readConnectionSecret>> = null;
    if (row.connectionType === 'external') {
      secret = await readConnectionSecret(ctx, app.id, row.secretKey!);
      if (!secret) throw analyticsErrors.secretResolution('Secret not found.', { secret_key: row.secretKey });
      engine = engineOfType(secret.typeSlug);
      if (engine === 'mysql') await loadMysqlParser();
      redact = secretStrings(secret.value);
    }
    const scope = engine === 'internal' ? { schema: site.schemaName, tables: await physicalTableNames(ctx, app.id) } : undefined;
    const { template, prepared } = preparedFor(engine, row.queryText, scope);
    const resolved = await resolveValues(template, { ctx, appId: app.id, params, external: engine !== 'internal' });
    resolved.values.forEach((v, i) => resolved.fromSecret[i] && redact.push(...secretStrings(v)));
    const values = prepared.slots.map((i) => resolved.values[i]);
    const req = {
      text: prepared.text,
      values,
      markers: prepared.markers,
      maxRows: ctx.platform.config.analyticsMaxRows,
      timeoutMs: ctx.platform.config.analyticsTimeoutMs,
    };
    result =
      engine === 'internal'
        ? await runInternal(ctx.platform, { siteId: site.id, schema: site.schemaName }, req)
        : await connectorFor(ctx.platform, `${site.id}:${app.id}:${row.secretKey}`, engine, secret!.value).run(req);
  } catch (e) {
    failure = toAnalyticsError(e, redact);
  }
  const durationMs = Number((process.hrtime.bigint() - started) / 1_000_000n);
  const outcome = failure && isAppError(failure) ? failure.code : failure ? 'internal_error' : 'success';
  const entry: Omit<ExecutionRow, 'createdAt'> = {
    executionKey,
    queryId: row.id,
    userId: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
    engine,
    status: failure ? 'error' : 'success',
    errorCode: failure ? outcome : null,
    rowCount: result?.rows.length ?? 0,
    truncated: result?.truncated ?? false,
    durationMs,
  };
  ctx.log.info(
    { execution_key: executionKey, query: row.slug, app: app.slug, engine, duration_ms: durationMs, rows: entry.rowCount, outcome },
    'analytics execution',
  );
  // Written even when the request was stopped by its deadline (whose scope refuses connections).
  await outsideRequestScope(() => executionRepository.insert(ctx.platform.pool, site.id, entry)).catch((e: Error) =>
    ctx.log.error({ err: e.message, execution_key: executionKey }, 'analytics execution log failed'),
  );
  if (failure) throw failure;
  return { rows: result!.rows, truncated: result!.truncated, executionKey };
}

/** Every string inside a secret value (at least 4 characters), to keep out of error details. */
function secretStrings(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 8) return out;
  if (typeof value === 'string' && value.length >= 4) out.push(value);
  else if (typeof value === 'number' && String(value).length >= 4) out.push(String(value));
  else if (Array.isArray(value)) value.forEach((v) => secretStrings(v, out, depth + 1));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => secretStrings(v, out, depth + 1));
  return out;
}

function scrub(message: string, redact: string[]): string {
  let m = message.slice(0, 500);
  for (const s of redact) if (m.includes(s)) m = m.split(s).join('[redacted]');
  return m;
}

/** Engine failures as the analytics errors: time-outs and refusals 422, unreachable engines 502. */
export function toAnalyticsError(e: unknown, redact: string[]): unknown {
  if (isAppError(e)) return e;
  const err = e as { code?: unknown; message?: unknown; errno?: unknown };
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const message = scrub(String(err?.message ?? 'Query failed.'), redact);
  if (isConnectionFailure(e)) return analyticsErrors.connector('Could not connect to the analytics datasource.', { engine_code: code });
  if (code === '57014')
    return analyticsErrors.execution('The query was cancelled: it ran longer than the time-out.', { engine_code: code });
  if (code) return analyticsErrors.execution(message, { engine_code: code });
  return analyticsErrors.execution(message);
}

/** One logged run of a query (never its parameter values). */
export type Execution = Omit<ExecutionRow, 'queryId'>;

const toExecution = ({ queryId: _q, ...e }: ExecutionRow): Execution => e;

/** The executions of a query, newest first, a page of them. */
export async function listExecutions(ctx: RequestContext, appRef: string, slug: string, input: ListInput): Promise<ListResult<Execution>> {
  const { row, site } = await loadQuery(ctx, appRef, slug, 'analytics:read');
  const page = pageRequest(input);
  const { rows, total } = await executionRepository.page(ctx.platform.pool, site.id, row.id, page.pageSize, page.offset);
  return { items: rows.map(toExecution), count: total, page };
}
