// GraphQL error formatting (one place for the gateway and every subgraph server) and the
// signed context header of the distributed mode.
import { GraphQLError } from 'graphql';
import jwt from 'jsonwebtoken';
import type { RequestContext } from '../../subgraphs/core/context.js';
import { errors } from '../../subgraphs/core/errors.js';
import { signContextToken, verifyContextToken } from '../../subgraphs/core/graphql/context-token.js';
import { formatGraphqlError } from '../../subgraphs/core/graphql/errors.js';

const wrap = (original: Error) =>
  new GraphQLError(original.message, { originalError: new GraphQLError(original.message, { originalError: original }) });

describe('formatGraphqlError', () => {
  test('an AppError deep in the chain gives its REST code, status and field errors', () => {
    const err = errors.field('page_size', 'Too small.');
    const out = formatGraphqlError(
      { message: err.message, path: ['app', 'tables'], extensions: { code: 'DOWNSTREAM_SERVICE_ERROR', serviceName: 'data' } },
      wrap(err),
    );
    expect(out).toEqual({
      message: 'Too small.',
      path: ['app', 'tables'],
      locations: undefined,
      extensions: { code: 'invalid', status: 400, errors: { page_size: ['Too small.'] } },
    });
  });

  test('an error already formatted by a subgraph server keeps its code', () => {
    const out = formatGraphqlError(
      { message: 'Not found.', extensions: { code: 'not_found', status: 404, serviceName: 'tenancy' } },
      new GraphQLError('Not found.'),
    );
    expect(out.extensions).toEqual({ code: 'not_found', status: 404 });
  });

  test('unknown errors are internal: no message, no stack', () => {
    const boom = new TypeError('secret detail at /srv/app.ts:1');
    const out = formatGraphqlError(
      { message: boom.message, extensions: { code: 'DOWNSTREAM_SERVICE_ERROR', stacktrace: ['x'] } },
      wrap(boom),
    );
    expect(out).toEqual({
      message: 'Internal server error.',
      locations: undefined,
      path: undefined,
      extensions: { code: 'internal_error', status: 500 },
    });
  });

  test("GraphQL's own client errors answer the REST codes", () => {
    expect(formatGraphqlError({ message: 'Syntax Error', extensions: { code: 'GRAPHQL_PARSE_FAILED' } }, null).extensions?.code).toBe(
      'parse_error',
    );
    expect(formatGraphqlError({ message: 'Cannot query', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }, null).extensions?.code).toBe(
      'invalid',
    );
    expect(formatGraphqlError({ message: 'x', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }, null).extensions).toEqual({
      code: 'PERSISTED_QUERY_NOT_FOUND',
    });
  });
});

describe('context header', () => {
  const ctx = {
    requestId: 'req-1',
    principal: { kind: 'user', via: 'jwt', userId: 7, uuid: 'u', username: 'ann', isStaff: false, isSuperuser: false },
    site: { id: 3 },
    host: 'shop.localhost',
    baseUrl: 'http://shop.localhost',
  } as unknown as RequestContext;

  test('round trip', () => {
    const claims = verifyContextToken(signContextToken(ctx, 's3cret'), 's3cret');
    expect(claims).toEqual({
      requestId: 'req-1',
      principal: ctx.principal,
      siteId: 3,
      host: 'shop.localhost',
      baseUrl: 'http://shop.localhost',
    });
  });

  test('missing, wrongly signed, expired or unsigned headers are refused with not_authenticated', () => {
    const cases = [
      undefined,
      signContextToken(ctx, 'other'),
      jwt.sign({ requestId: 'r', principal: { kind: 'anonymous' }, host: 'h', exp: Math.floor(Date.now() / 1000) - 60 }, 's3cret', {
        issuer: 'tenantry-gateway',
        audience: 'tenantry-subgraph',
      }),
      jwt.sign({ requestId: 'r', principal: { kind: 'anonymous' }, host: 'h' }, '', { algorithm: 'none' }),
    ];
    for (const header of cases) {
      expect(() => verifyContextToken(header, 's3cret')).toThrow(expect.objectContaining({ code: 'not_authenticated', status: 401 }));
    }
  });
});
