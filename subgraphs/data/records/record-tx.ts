// One transaction per record write request: all or nothing, database errors translated to the
// data envelope, record events fired only after COMMIT (never for a rolled-back write).
import type pg from 'pg';
import type { RequestContext } from '../../core/context.js';
import { withTransaction } from '../../core/db.js';
import type { AppRow } from '../../tenancy/tenancy.api.js';
import { recordIdOf } from '../model/codec.js';
import type { DataTable } from '../model/table-model.js';
import type { RecordEvent } from '../../core/hooks.js';
import { translatePgError, type WriteKind } from './pg-errors.js';
import type { Row } from './record-sql.js';

/** Collects the events of a write; they are fired once the transaction has committed. */
export class EventLog {
  readonly events: RecordEvent[] = [];
  constructor(
    private readonly app: Pick<AppRow, 'slug'>,
    private readonly table: Pick<DataTable, 'name' | 'model'>,
  ) {}

  private base(record: Row) {
    return { app_slug: this.app.slug, datatable: this.table.name, record_id: recordIdOf(this.table.model, record), data: record };
  }
  created(records: Row[]): void {
    for (const r of records) this.events.push({ type: 'RECORD_CREATE', ...this.base(r) });
  }
  updated(record: Row, previous: Row): void {
    this.events.push({ type: 'RECORD_UPDATE', ...this.base(record), previous });
  }
  deleted(records: Row[], hard: boolean): void {
    for (const r of records) this.events.push({ type: 'RECORD_DELETE', ...this.base(r), hard });
  }
}

/**
 * Runs `work` in a transaction on its own connection. On failure: ROLLBACK, and a database
 * error becomes 400/403/404/409 (`recordIndex` on the error names the item of an array body).
 */
export async function inTransaction<T>(
  ctx: RequestContext,
  table: DataTable,
  kind: WriteKind,
  log: EventLog,
  work: (client: pg.PoolClient, now: Date) => Promise<T>,
  /** The body was an array: errors name `[i].field`. */
  indexed = false,
): Promise<T> {
  let out: T;
  try {
    // One clock for the whole request: created_at/updated_at of a bulk write agree.
    out = await withTransaction(ctx.platform.pool, async (client) => {
      const result = await work(client, new Date());
      // In the writer's transaction: the events module's outbox commits or rolls back with the records.
      if (log.events.length) await ctx.platform.hooks.runBlocking(ctx, 'recordsWritten', client, log.events, ctx);
      return result;
    });
  } catch (e) {
    throw translatePgError(e, table, kind, indexed ? (e as { recordIndex?: number })?.recordIndex : undefined);
  }
  if (log.events.length) await ctx.platform.hooks.runAfter(ctx, 'recordsCommitted', log.events, ctx);
  return out;
}
