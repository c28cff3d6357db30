// JSON Schema validation at the domain edge: ajv errors become the console's field errors.
import { validate } from '../../subgraphs/core/validate.js';

const SCHEMA = {
  type: 'object',
  required: ['email'],
  properties: {
    email: { type: 'string', format: 'email' },
    name: { type: 'string', minLength: 1, maxLength: 5 },
    role: { type: 'string', enum: ['owner', 'member'] },
    sites: {
      type: 'array',
      items: { type: 'object', required: ['slug'], additionalProperties: false, properties: { slug: { type: 'string' } } },
    },
  },
} as const;

const fieldErrors = (data: unknown) => {
  try {
    validate(SCHEMA, data);
    return null;
  } catch (e) {
    return { status: (e as { status: number }).status, code: (e as { code: string }).code, errors: (e as { errors: unknown }).errors };
  }
};

test('valid data passes through unchanged; a missing body is an empty object', () => {
  expect(validate(SCHEMA, { email: 'a@b.test', role: 'owner' })).toEqual({ email: 'a@b.test', role: 'owner' });
  expect(validate({ type: 'object' }, undefined)).toEqual({});
});

test('every problem is named by its field path, nested ones dotted', () => {
  expect(fieldErrors({ name: '', role: 'boss', sites: [{}, { slug: 'x', extra: 1 }] })).toEqual({
    status: 400,
    code: 'invalid',
    errors: {
      email: ['This field is required.'],
      name: ['This field may not be blank.'],
      role: ['Must be one of: owner, member.'],
      'sites.0.slug': ['This field is required.'],
      'sites.1': ['Unknown field "extra".'],
    },
  });
  expect(fieldErrors({ email: 'nope', name: 'toolong' })?.errors).toEqual({
    email: ['Enter a valid e-mail address.'],
    name: ['Use at most 5 characters.'],
  });
  expect(fieldErrors([1])?.errors).toEqual({ non_field_errors: ['Must be of type object.'] });
});
