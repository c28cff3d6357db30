// `POST data/upsert/?unique_fields=…` (docs/data-service.md "Bulk writes"): each item updates
// the record whose unique fields match, else creates one. The match is looked up and locked
// first (it gives RECORD_UPDATE its `previous` and decides which validation applies: a
// create needs the required fields, an update does not); a concurrent insert of the same
// values then fails on the unique constraint (409) instead of creating a duplicate.
import type { RequestContext } from '../../core/context.js';
import { dataErrors } from '../data-errors.js';
import type { DataTable, FieldModel } from '../model/table-model.js';
import { fieldOf } from '../model/table-model.js';
import { fieldExpr, sqlTypeOf } from '../query/field-expr.js';
import { tableCondition } from '../query/filter-sql.js';
import { Params } from '../sql.js';
import { loadTable } from '../table/table-access.js';
import { keyOf, type Row } from './record-sql.js';
import { EventLog, inTransaction } from './record-tx.js';
import { validateRecords } from './record-validator.js';
import { insertRecords, markIndex, selectForUpdate, updateRecords } from './record-write.repository.js';
import { MAX_BULK } from './record-write.service.js';
import type { UpsertInput } from './write-params.js';

/** The fields named by `unique_fields`: the primary key, or one field with a unique constraint. */
export function uniqueFieldsOf(table: DataTable, names: readonly string[]): FieldModel[] {
  if (names.length === 0) throw dataErrors.invalidParam('unique_fields', 'Name the field(s) that identify a record.');
  const fields = names.map((n) => {
    const f = fieldOf(table.model, n);
    if (!f) throw dataErrors.invalidParam('unique_fields', `Unknown field "${n}".`);
    return f;
  });
  const pk = table.model.primaryKey;
  const isKey = names.length === pk.length && pk.every((k) => names.includes(k));
  const isUnique = fields.length === 1 && fields[0].constraints.unique === true;
  if (!isKey && !isUnique) {
    throw dataErrors.invalidParam('unique_fields', `"${names.join(',')}" is neither the primary key nor a field with a unique constraint.`);
  }
  return fields;
}

function matchWhere(table: DataTable, fields: FieldModel[], item: Row, params: Params): string {
  const parts = fields.map((f) => `${fieldExpr(table, f)} = ${params.add(item[f.name])}::${sqlTypeOf(f)}`);
  const own = tableCondition(table, params);
  return (own ? [own, ...parts] : parts).join(' AND ');
}

export interface UpsertResult {
  table: DataTable;
  records: Row[];
  created: boolean[];
  many: boolean;
}

export async function upsertRecords(ctx: RequestContext, appRef: string, name: string, input: UpsertInput): Promise<UpsertResult> {
  const { app, table } = await loadTable(ctx, appRef, name, 'data:write');
  const fields = uniqueFieldsOf(table, input.uniqueFields);
  const many = input.many;
  const raw = many ? [...input.records] : input.records.slice(0, 1);
  if (many && raw.length === 0) throw dataErrors.validation({ non_field_errors: ['The list is empty.'] });
  if (raw.length > MAX_BULK) throw dataErrors.validation({ non_field_errors: [`At most ${MAX_BULK} records per request.`] });
  // Types and constraints of what was sent; required fields are checked for creates below.
  const items = validateRecords(ctx.platform, table, raw, 'patch', many);
  const missing: Record<string, string[]> = {};
  items.forEach((item, i) => {
    for (const f of fields)
      if (item[f.name] === undefined || item[f.name] === null)
        missing[many ? `[${i}].${f.name}` : f.name] = ['Required to match a record (unique_fields).'];
  });
  if (Object.keys(missing).length) throw dataErrors.validation(missing);

  const log = new EventLog(app, table);
  const out = await inTransaction(
    ctx,
    table,
    'insert',
    log,
    async (client, now) => {
      const records: Row[] = [];
      const created: boolean[] = [];
      for (let i = 0; i < items.length; i++) {
        try {
          const params = new Params();
          const [previous] = await selectForUpdate(client, table, matchWhere(table, fields, items[i], params), params);
          if (previous) {
            const patch = { ...items[i] };
            for (const f of fields) delete patch[f.name];
            const [record] = await updateRecords(client, table, [keyOf(table.model, previous)], patch, now);
            log.updated(record, previous);
            records.push(record);
            created.push(false);
          } else {
            const [checked] = validateRecords(ctx.platform, table, [raw[i]], 'create', many, i);
            const [record] = await insertRecords(client, table, [checked], now);
            log.created([record]);
            records.push(record);
            created.push(true);
          }
        } catch (e) {
          throw markIndex(e, i);
        }
      }
      return { records, created };
    },
    many,
  );
  return { table, ...out, many };
}
