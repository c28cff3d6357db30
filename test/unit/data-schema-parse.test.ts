import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../subgraphs/core/errors.js';
import {
  checkReferences,
  modelFromStored,
  normalizeSchema,
  parsePackage,
  physicalNameFor,
} from '../../subgraphs/data/model/schema-parse.js';
import type { TableModel } from '../../subgraphs/data/model/table-model.js';

function errorsOf(body: unknown): Record<string, string[]> {
  try {
    parsePackage(body);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).errors!;
  }
  throw new Error('expected a validation error');
}

const posts = {
  name: 'posts',
  schema: {
    fields: [
      { name: 'title', type: 'string', constraints: { required: true, maxLength: 200 } },
      { name: 'body', type: 'string' },
      { name: 'views', type: 'integer', default: 0, constraints: { minimum: 0 } },
      { name: 'status', type: 'string', constraints: { enum: ['draft', 'published'] }, default: 'draft' },
      { name: 'author', type: 'integer' },
      { name: 'meta', type: 'object' },
      { name: 'is_deleted', type: 'boolean' },
      { name: 'created_at', type: 'datetime' },
    ],
    foreignKeys: [{ fields: 'author', reference: { resource: 'authors', fields: 'id' }, 'x-actions': { onDelete: 'SET NULL' } }],
    search_fields: ['title', { name: 'body', weight: 'B' }],
  },
};
const authors = {
  name: 'authors',
  schema: {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'string', constraints: { unique: true } },
    ],
    primaryKey: 'id',
  },
};

describe('data schema parsing', () => {
  it('builds models with generated keys, soft delete, automatic fields and search', () => {
    const [p, a] = parsePackage({ resources: [posts, authors] });
    expect(p.primaryKey).toEqual(['id']);
    expect(p.fields[0]).toMatchObject({ name: 'id', type: 'string', format: 'uuid', generated: 'uuid', nullable: false });
    expect(p.softDelete).toBe(true);
    expect(p.fields.find((f) => f.name === 'created_at')!.auto).toBe('created_at');
    expect(p.fields.find((f) => f.name === 'title')!.nullable).toBe(false);
    expect(p.fields.find((f) => f.name === 'body')!.nullable).toBe(true);
    expect(p.search).toEqual({
      fields: [
        { name: 'title', weight: 'A' },
        { name: 'body', weight: 'B' },
      ],
      language: 'english',
    });
    expect(p.foreignKeys[0]).toEqual({ fields: ['author'], reference: { resource: 'authors', fields: ['id'] }, onDelete: 'SET NULL' });
    expect(a.fields[0].generated).toBe('identity');
    const errs: Record<string, string[]> = {};
    checkReferences(p, (n) => (n === 'authors' ? a : undefined), 'resources[0]', errs);
    expect(errs).toEqual({});
  });

  it('round-trips through the stored schema', () => {
    for (const m of parsePackage({ resources: [posts, authors] })) {
      const again = modelFromStored(m.name, m.provider, m.description, JSON.parse(JSON.stringify(normalizeSchema(m))));
      expect(again).toEqual(m);
    }
  });

  it('names every problem by its path', () => {
    const errs = errorsOf({
      resources: [
        {
          name: 'Bad Name',
          schema: {
            fields: [
              { name: 'a__b', type: 'string' },
              { name: 'n', type: 'integer', constraints: { minLength: 2 } },
              { name: 's', type: 'string', constraints: { pattern: '(' } },
              { name: 'x', type: 'float' },
            ],
          },
        },
      ],
    });
    expect(Object.keys(errs).sort()).toEqual([
      'resources[0].name',
      'resources[0].schema.fields[0].name',
      'resources[0].schema.fields[1].constraints.minLength',
      'resources[0].schema.fields[2].constraints.pattern',
      'resources[0].schema.fields[3].type',
    ]);
  });

  it('checks defaults, keys, foreign-key actions and references', () => {
    const errs = errorsOf({
      resources: [
        {
          name: 't',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'v', type: 'integer', default: 'x' },
              { name: 'r', type: 'integer', constraints: { required: true } },
              { name: 'q', type: 'integer' },
            ],
            primaryKey: ['id', 'missing'],
            foreignKeys: [
              { fields: 'r', reference: { resource: 'u', fields: 'id' }, 'x-actions': { onDelete: 'SET NULL' } },
              { fields: 'q', reference: { resource: 'u', fields: 'id' }, 'x-actions': { onDelete: 'SET DEFAULT' } },
              { fields: 'q', reference: { resource: 'u', fields: 'id' }, 'x-actions': { onDelete: 'EXPLODE' } },
            ],
          },
        },
      ],
    });
    expect(errs['resources[0].schema.fields[1].default']).toBeDefined();
    const again = errorsOf({
      resources: [
        {
          name: 't',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'r', type: 'integer', constraints: { required: true } },
              { name: 'q', type: 'integer' },
            ],
            primaryKey: ['id', 'missing'],
            foreignKeys: [
              { fields: 'r', reference: { resource: 'u', fields: 'id' }, 'x-actions': { onDelete: 'SET NULL' } },
              { fields: 'q', reference: { resource: 'u', fields: 'id' }, 'x-actions': { onDelete: 'SET DEFAULT' } },
              { fields: 'q', reference: { resource: 'u', fields: 'id' }, 'x-actions': { onDelete: 'EXPLODE' } },
            ],
          },
        },
      ],
    });
    expect(again['resources[0].schema.primaryKey']).toEqual(['No field "missing".']);
    expect(again['resources[0].schema.foreignKeys[0].x-actions.onDelete']).toBeDefined();
    expect(again['resources[0].schema.foreignKeys[1].x-actions.onDelete']).toBeDefined();
    expect(again['resources[0].schema.foreignKeys[2].x-actions.onDelete']).toBeDefined();
  });

  it('checks reference targets and column types', () => {
    const [t] = parsePackage({
      resources: [
        {
          name: 't',
          schema: {
            fields: [
              { name: 'u', type: 'string' },
              { name: 'w', type: 'integer' },
            ],
            foreignKeys: [
              { fields: 'u', reference: { resource: 'users', fields: 'id' } },
              { fields: 'w', reference: { resource: 'nope', fields: 'id' } },
            ],
          },
        },
      ],
    });
    const [users] = parsePackage({ resources: [{ name: 'users', schema: { fields: [{ name: 'id', type: 'integer' }] } }] });
    const errs: Record<string, string[]> = {};
    checkReferences(t as TableModel, (n) => (n === 'users' ? users : undefined), 'resources[0]', errs);
    expect(Object.keys(errs).sort()).toEqual([
      'resources[0].schema.foreignKeys[0].reference.fields',
      'resources[0].schema.foreignKeys[1].reference.resource',
    ]);
  });

  it('refuses foreign keys on jsonb tables and limits physical names to 63 bytes', () => {
    const errs = errorsOf({
      resources: [
        {
          name: 'j',
          provider: 'jsonb',
          schema: { fields: [{ name: 'a', type: 'integer' }], foreignKeys: [{ fields: 'a', reference: { resource: 'x', fields: 'id' } }] },
        },
      ],
    });
    expect(errs['resources[0].schema.foreignKeys']).toBeDefined();
    expect(physicalNameFor('shop', 'order-lines')).toBe('shop_order_lines');
    expect(physicalNameFor('a'.repeat(40), 'b'.repeat(30))).toBeNull();
  });
});
