// Record validation from a table's model (docs/data-service.md "Record JSON"): every
// constraint, create vs patch, automatic fields, array bodies, the compiled-once cache, and
// the database-error translation that backs it up.
import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../subgraphs/core/errors.js';
import type { Platform } from '../../subgraphs/core/platform.js';
import { parsePackage } from '../../subgraphs/data/model/schema-parse.js';
import type { TableModel } from '../../subgraphs/data/model/table-model.js';
import { keyFieldsOf, translatePgError } from '../../subgraphs/data/records/pg-errors.js';
import {
  cachedValidatorCount,
  recordJsonSchema,
  requiredOnCreate,
  validateRecords,
} from '../../subgraphs/data/records/record-validator.js';
import { keysCondition, storeRecordId, withStoreDefaults } from '../../subgraphs/data/records/record-sql.js';
import { Params } from '../../subgraphs/data/sql.js';

const [model] = parsePackage({
  resources: [
    {
      name: 'items',
      schema: {
        fields: [
          { name: 'title', type: 'string', constraints: { required: true, minLength: 2, maxLength: 10 } },
          { name: 'code', type: 'string', constraints: { pattern: '^[A-Z]{3}$', unique: true } },
          { name: 'email', type: 'string', format: 'email' },
          { name: 'site', type: 'string', format: 'uri' },
          { name: 'ref', type: 'string', format: 'uuid' },
          { name: 'qty', type: 'integer', constraints: { minimum: 0, maximum: 100 } },
          { name: 'price', type: 'number' },
          { name: 'status', type: 'string', constraints: { enum: ['draft', 'live'] }, default: 'draft' },
          { name: 'ok', type: 'boolean' },
          { name: 'day', type: 'date' },
          { name: 'at', type: 'time' },
          { name: 'when', type: 'datetime' },
          { name: 'meta', type: 'object' },
          { name: 'tags', type: 'array' },
          { name: 'extra', type: 'any' },
          { name: 'is_deleted', type: 'boolean' },
          { name: 'created_at', type: 'datetime' },
          { name: 'updated_at', type: 'datetime' },
        ],
      },
    },
  ],
});

let nextId = 1;
const table = (m: TableModel = model) => ({ id: nextId++, version: 1, model: m });
const platform = {} as Platform;
const T = table();

function errorsOf(bodies: unknown[], mode: 'create' | 'patch' = 'create', indexed = false): Record<string, string[]> {
  try {
    validateRecords(platform, T, bodies, mode, indexed);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(400);
    return (e as AppError).errors!;
  }
  throw new Error('expected a validation error');
}

describe('record validation', () => {
  it('accepts a full valid record and strips automatic fields', () => {
    const [out] = validateRecords(
      platform,
      T,
      [
        {
          title: 'Hello',
          code: 'ABC',
          email: 'a@b.co',
          site: 'https://x.test/p',
          ref: '0b6c1a9e-5d8e-4b8a-9f0e-1c2d3e4f5a6b',
          qty: 5,
          price: 1.5,
          status: 'live',
          ok: true,
          day: '2026-02-28',
          at: '12:30:00',
          when: '2026-01-02T03:04:05Z',
          meta: { a: 1 },
          tags: ['x'],
          extra: 'anything',
          is_deleted: false,
          created_at: 'ignored',
          updated_at: 'ignored',
        },
      ],
      'create',
      false,
    );
    expect(out).not.toHaveProperty('created_at');
    expect(out).not.toHaveProperty('updated_at');
    expect(out.title).toBe('Hello');
  });

  it('requires required fields on create only; defaults, generated keys and is_deleted are optional', () => {
    expect(requiredOnCreate(model)).toEqual(['title']);
    expect(errorsOf([{}])).toEqual({ title: ['This field is required.'] });
    expect(validateRecords(platform, T, [{}], 'patch', false)).toEqual([{}]);
  });

  it('reports every constraint with field messages', () => {
    const errs = errorsOf([
      {
        title: 'x',
        code: 'abc',
        email: 'nope',
        site: 'not a uri',
        ref: 'zzz',
        qty: 101,
        price: '1',
        status: 'gone',
        ok: 'yes',
        day: '2026-02-30',
        at: '25:00:00',
        when: '2026-01-02T03:04:05',
        meta: [],
        tags: {},
        unknown: 1,
      },
    ]);
    expect(errs.title).toEqual(['Use at least 2 characters.']);
    expect(errs.code).toEqual(['Must match the pattern ^[A-Z]{3}$.']);
    expect(errs.email).toEqual(['Enter a valid e-mail address.']);
    expect(errs.site).toEqual(['Must be a valid uri.']);
    expect(errs.ref).toEqual(['Must be a valid uuid.']);
    expect(errs.qty).toEqual(['Must be at most 100.']);
    expect(errs.price[0]).toMatch(/number/);
    expect(errs.status[0]).toBe('Must be one of: "draft", "live".');
    expect(errs.ok[0]).toMatch(/boolean/);
    expect(errs.day[0]).toMatch(/date/);
    expect(errs.at[0]).toMatch(/time/);
    expect(errs.when[0]).toMatch(/datetime/);
    expect(errs.meta[0]).toMatch(/object/);
    expect(errs.tags[0]).toMatch(/array/);
    expect(errs.unknown).toEqual(['Unknown field "unknown".']);
  });

  it('is strict JSON: "5" is not an integer, 1.5 is not an integer, null only where nullable', () => {
    expect(errorsOf([{ title: 'ok', qty: '5' }]).qty[0]).toMatch(/integer/);
    expect(errorsOf([{ title: 'ok', qty: 1.5 }]).qty[0]).toMatch(/integer/);
    expect(errorsOf([{ title: null }]).title[0]).toMatch(/string/);
    expect(errorsOf([{ title: 'ok', is_deleted: null }]).is_deleted[0]).toMatch(/boolean/);
    expect(validateRecords(platform, T, [{ title: 'ok', qty: null, status: null, meta: null }], 'create', false)).toHaveLength(1);
  });

  it('dates of years 1–99 are real dates; NUL characters are refused per field', () => {
    expect(
      validateRecords(platform, T, [{ title: 'ok', day: '0001-01-01', when: '0001-01-01T00:00:00+14:00' }], 'create', false),
    ).toHaveLength(1);
    expect(errorsOf([{ title: 'ok', day: '0099-02-29' }]).day[0]).toMatch(/date/);
    expect(errorsOf([{ title: 'a\u0000b', meta: { k: ['\u0000'] } }])).toEqual({
      title: ['Must not contain the NUL character (\\u0000).'],
      meta: ['Must not contain the NUL character (\\u0000).'],
    });
  });

  it('names items of array bodies [i].field, and non-objects', () => {
    const errs = errorsOf([{ title: 'ok' }, { title: 'x' }, 'str', [1]], 'create', true);
    expect(errs).toEqual({
      '[1].title': ['Use at least 2 characters.'],
      '[2]': ['A record must be a JSON object.'],
      '[3]': ['A record must be a JSON object.'],
    });
  });

  it('patch variant: no required, same types and constraints', () => {
    expect(errorsOf([{ qty: -1 }], 'patch')).toEqual({ qty: ['Must be at least 0.'] });
  });

  it('compiles once per (table, version, mode), bounded', () => {
    const p = {} as Platform;
    const t = table();
    for (let i = 0; i < 5; i++) validateRecords(p, t, [{ title: 'ok' }], 'create', false);
    expect(cachedValidatorCount(p)).toBe(1);
    validateRecords(p, { ...t, version: 2 }, [{ title: 'ok' }], 'patch', false);
    expect(cachedValidatorCount(p)).toBe(2);
    for (let i = 0; i < 1100; i++) validateRecords(p, { ...t, id: 10_000 + i }, [{}], 'patch', false);
    expect(cachedValidatorCount(p)).toBe(1000);
  });

  it('schema is additionalProperties false with nullable unions', () => {
    const s = recordJsonSchema(model, 'create') as {
      properties: Record<string, { type?: unknown; enum?: unknown[] }>;
      additionalProperties: boolean;
    };
    expect(s.additionalProperties).toBe(false);
    expect(s.properties.qty.type).toEqual(['integer', 'null']);
    expect(s.properties.status.enum).toEqual(['draft', 'live', null]);
    expect(s.properties.title.type).toBe('string');
  });
});

describe('database error translation', () => {
  const t = { model, name: 'items' };
  it('unique → 409 with field (columns and jsonb expression indexes)', () => {
    const e = translatePgError({ code: '23505', detail: 'Key (code)=(ABC) already exists.' }, t, 'insert') as AppError;
    expect([e.status, e.details?.field]).toEqual([409, 'code']);
    expect(keyFieldsOf(`Key ((data ->> 'code'::text))=(ABC) already exists.`, t)).toEqual(['code']);
    const indexed = translatePgError({ code: '23505', detail: 'Key (code)=(ABC) already exists.' }, t, 'insert', 3) as AppError;
    expect(indexed.details?.field).toBe('[3].code');
  });
  it('foreign key: 400 with field on write, 403 on delete', () => {
    const w = translatePgError({ code: '23503', detail: 'Key (qty)=(5) is not present in table "x".' }, t, 'insert') as AppError;
    expect([w.status, w.details?.field]).toEqual([400, 'qty']);
    const d = translatePgError(
      { code: '23503', detail: 'Key (id)=(1) is still referenced from table "y".', table: 'y' },
      t,
      'delete',
    ) as AppError;
    expect(d.status).toBe(403);
  });
  it('not null, check, bad representations → 400 details; others pass through', () => {
    expect((translatePgError({ code: '23502', column: 'title' }, t, 'insert') as AppError).errors).toEqual({
      title: ['This field is required.'],
    });
    expect((translatePgError({ code: '23514', constraint: 'ck_abc' }, t, 'insert') as AppError).status).toBe(400);
    for (const code of ['22P02', '22003', '22007', '22008', '2201B'])
      expect((translatePgError({ code }, t, 'update') as AppError).status).toBe(400);
    const other = new Error('boom');
    expect(translatePgError(other, t, 'insert')).toBe(other);
  });
});

describe('record SQL helpers', () => {
  it('matches keys with bound arrays, never pasted values', () => {
    const p = new Params();
    const sql = keysCondition({ provider: 'flat_table', model, id: 1 }, [["x'); DROP TABLE t; --"]], p);
    expect(sql).toBe('"id" = ANY($1::uuid[])');
    expect(p.values).toEqual([["x'); DROP TABLE t; --"]]);
  });
  it('jsonb store ids are canonical; defaults filled like the database would', () => {
    const [m] = parsePackage({
      resources: [
        {
          name: 'n',
          schema: {
            fields: [
              { name: 'n', type: 'integer' },
              { name: 'd', type: 'datetime', default: 'now' },
            ],
            primaryKey: 'n',
          },
        },
      ],
    });
    expect(storeRecordId(m, ['007'])).toBe('7');
    const now = new Date('2026-01-02T03:04:05.000Z');
    expect(withStoreDefaults(model, { title: 'a', when: '2026-01-02T04:04:05+01:00' }, now)).toMatchObject({
      title: 'a',
      status: 'draft',
      is_deleted: false,
      created_at: now.toISOString(),
      when: '2026-01-02T03:04:05.000Z',
    });
    expect(withStoreDefaults(m, {}, now)).toEqual({ d: now.toISOString() });
  });
});
