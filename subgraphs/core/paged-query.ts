// One page of rows and the exact total of all matches in a single query (a window count),
// instead of a second COUNT query per list request.
import type pg from 'pg';
import { prepared } from './db.js';
import type { PageRequest } from './listing.js';

export interface PageQuery {
  /** Column list of the SELECT. */
  select: string;
  /** FROM clause with its joins, starting with FROM. */
  from: string;
  /** WHERE condition; its placeholders are $1…$n of `params`. */
  where: { sql: string; params: unknown[] };
  orderBy: string;
  page: Pick<PageRequest, 'pageSize' | 'offset'>;
}

export async function queryPage<T>(pool: Pick<pg.Pool, 'query'>, q: PageQuery): Promise<{ rows: T[]; count: number }> {
  const n = q.where.params.length;
  const { rows } = await pool.query(
    prepared(
      `SELECT ${q.select}, count(*) OVER () AS "__total" ${q.from} WHERE ${q.where.sql}
      ORDER BY ${q.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...q.where.params, q.page.pageSize, q.page.offset],
    ),
  );
  // Past the last page there is no row to carry the total: count separately.
  if (rows.length === 0 && q.page.offset > 0) {
    const counted = await pool.query(`SELECT count(*)::int AS count ${q.from} WHERE ${q.where.sql}`, q.where.params);
    return { rows: [], count: counted.rows[0].count };
  }
  const count = rows.length ? Number(rows[0].__total) : 0;
  for (const r of rows) delete r.__total;
  return { rows: rows as T[], count };
}
