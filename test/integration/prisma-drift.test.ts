// The Prisma models (prisma/schema.prisma) and the database the SQL migrations produce must
// describe the same tables: columns, types, nullability, defaults, keys, unique and plain
// indexes, and foreign keys with their ON DELETE actions.
import fs from 'node:fs';
import internals from '@prisma/internals';
import pg from 'pg';
import { createTestDatabase } from '../support/db.js';

type Dmmf = Awaited<ReturnType<typeof internals.getDMMF>>;
type Model = Dmmf['datamodel']['models'][number];

const TYPE_MAP: Record<string, string> = {
  Int: 'int4',
  BigInt: 'int8',
  String: 'text',
  Boolean: 'bool',
  DateTime: 'timestamp',
  Json: 'jsonb',
  Float: 'float8',
  Bytes: 'bytea',
};
const NATIVE_MAP: Record<string, string> = { Uuid: 'uuid', Timestamptz: 'timestamptz' };
const ON_DELETE: Record<string, string> = { Cascade: 'c', Restrict: 'r', SetNull: 'n', SetDefault: 'd', NoAction: 'a' };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let dmmf: Dmmf;

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  dmmf = await internals.getDMMF({ datamodel: fs.readFileSync('prisma/schema.prisma', 'utf8') });
});
afterAll(async () => {
  await client.end();
  await db.drop();
});

const tableOf = (m: Model) => m.dbName ?? m.name;
const columnOf = (m: Model, field: string) => {
  const f = m.fields.find((x) => x.name === field)!;
  return f.dbName ?? f.name;
};

function expectedColumns(m: Model) {
  return m.fields
    .filter((f) => f.kind === 'scalar')
    .map((f) => {
      const base = f.nativeType ? NATIVE_MAP[f.nativeType[0]] : TYPE_MAP[f.type];
      return {
        column: f.dbName ?? f.name,
        type: f.isList ? `_${base}` : base,
        nullable: !f.isRequired && !f.isList,
        hasDefault: f.hasDefaultValue,
      };
    })
    .sort((a, b) => a.column.localeCompare(b.column));
}

async function actualColumns(table: string) {
  const { rows } = await client.query(
    `SELECT column_name, udt_name, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 ORDER BY column_name`,
    [table],
  );
  return rows.map((r) => ({
    column: r.column_name,
    type: r.udt_name,
    nullable: r.is_nullable === 'YES',
    hasDefault: r.column_default !== null,
  }));
}

test('every table of the database has a model, and every model a table', async () => {
  const { rows } = await client.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const actual = rows
    .map((r) => r.table_name)
    .filter((t) => t !== '_platform_migrations')
    .sort();
  expect(actual).toEqual(dmmf.datamodel.models.map(tableOf).sort());
});

test('columns match in name, type, nullability and default', async () => {
  for (const m of dmmf.datamodel.models) {
    expect({ table: tableOf(m), columns: await actualColumns(tableOf(m)) }).toEqual({ table: tableOf(m), columns: expectedColumns(m) });
  }
});

test('primary keys, unique and plain indexes match', async () => {
  const { rows } = await client.query(
    `SELECT t.relname AS table, i.indisunique AS unique, i.indisprimary AS primary,
            i.indexprs IS NOT NULL OR i.indpred IS NOT NULL AS special,
            array_agg(a.attname::text ORDER BY k.n) AS columns
       FROM pg_index i
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace ns ON ns.oid = t.relnamespace AND ns.nspname = 'public'
       LEFT JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ON true
       LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE t.relname <> '_platform_migrations'
      GROUP BY t.relname, i.indexrelid, i.indisunique, i.indisprimary, i.indexprs, i.indpred`,
  );
  // Partial and expression indexes cannot be expressed in Prisma; they live in SQL only.
  const actual = rows
    .filter((r) => !r.special)
    .map((r) => `${r.table}:${r.primary ? 'id' : r.unique ? 'unique' : 'normal'}:${r.columns.join(',')}`)
    .sort();
  const expected = dmmf.datamodel.indexes
    .map((ix) => {
      const m = dmmf.datamodel.models.find((x) => x.name === ix.model)!;
      return `${tableOf(m)}:${ix.type}:${ix.fields.map((f) => columnOf(m, f.name)).join(',')}`;
    })
    .sort();
  expect(actual).toEqual(expected);
});

test('foreign keys match, with their ON DELETE action', async () => {
  const { rows } = await client.query(
    `SELECT c.conrelid::regclass::text AS table, c.confrelid::regclass::text AS ref, c.confdeltype AS on_delete,
            (SELECT array_agg(a.attname::text ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns
       FROM pg_constraint c JOIN pg_namespace ns ON ns.oid = c.connamespace AND ns.nspname = 'public'
      WHERE c.contype = 'f'`,
  );
  const actual = rows.map((r) => `${r.table}(${r.columns.join(',')})->${r.ref}:${r.on_delete}`).sort();
  const expected: string[] = [];
  for (const m of dmmf.datamodel.models) {
    for (const f of m.fields) {
      if (f.kind !== 'object' || !f.relationFromFields?.length) continue;
      const target = dmmf.datamodel.models.find((x) => x.name === f.type)!;
      const cols = f.relationFromFields.map((n) => columnOf(m, n)).join(',');
      expected.push(`${tableOf(m)}(${cols})->${tableOf(target)}:${ON_DELETE[f.relationOnDelete ?? 'NoAction']}`);
    }
  }
  expect(actual).toEqual(expected.sort());
});
