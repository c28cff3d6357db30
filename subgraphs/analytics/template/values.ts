// Values of a template's placeholders, resolved server-side for one execution: `params` from
// the caller (bounded, never secret references), `secret.*` through the secrets module
// (external queries only), `secret.user_profile.*` from the signed-in user.
import type { RequestContext } from '../../core/context.js';
import { isAppError } from '../../core/errors.js';
import { resolveSecretReference } from '../../secrets/secrets.api.js';
import { userRepository } from '../../tenancy/tenancy.api.js';
import { analyticsErrors } from '../analytics-errors.js';
import type { ParsedTemplate, Placeholder, UserProfileField } from './template.js';

export const PARAM_LIMITS = { maxKeys: 100, maxDepth: 8, maxValueChars: 65_536, maxTotalChars: 262_144 };

const SECRET_IN_PARAM = /\{\{\s*secret\./i;

export type Params = Record<string, unknown>;

/** Checks `params` once: an object, bounded, without `{{ secret.… }}` anywhere in it. */
export function parseParams(raw: unknown): Params {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw analyticsErrors.validation({ params: ['Must be an object.'] });
  const params = raw as Params;
  const keys = Object.keys(params);
  if (keys.length > PARAM_LIMITS.maxKeys) throw analyticsErrors.validation({ params: [`At most ${PARAM_LIMITS.maxKeys} parameters.`] });
  let total = 0;
  for (const k of keys) {
    const size = JSON.stringify(params[k] ?? null).length;
    total += size;
    if (size > PARAM_LIMITS.maxValueChars)
      throw analyticsErrors.validation({ [`params.${k}`]: [`Larger than ${PARAM_LIMITS.maxValueChars} characters.`] });
    checkValue(params[k], `params.${k}`, 0);
  }
  if (total > PARAM_LIMITS.maxTotalChars)
    throw analyticsErrors.validation({ params: [`Larger than ${PARAM_LIMITS.maxTotalChars} characters.`] });
  return params;
}

function checkValue(v: unknown, path: string, depth: number): void {
  if (depth > PARAM_LIMITS.maxDepth) throw analyticsErrors.validation({ [path]: [`Nested deeper than ${PARAM_LIMITS.maxDepth} levels.`] });
  if (typeof v === 'string') {
    if (SECRET_IN_PARAM.test(v)) throw analyticsErrors.validation({ [path]: ['Secret references are not allowed in params.'] });
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => checkValue(x, `${path}[${i}]`, depth + 1));
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (SECRET_IN_PARAM.test(k)) throw analyticsErrors.validation({ [path]: ['Secret references are not allowed in params.'] });
      checkValue(x, `${path}.${k}`, depth + 1);
    }
  }
}

export interface ValueSource {
  ctx: RequestContext;
  appId: number;
  params: Params;
  /** Internal queries may not read other secrets. */
  external: boolean;
}

export interface ResolvedValues {
  values: unknown[];
  /** Which values came from secrets (never logged, never echoed). */
  fromSecret: boolean[];
}

/** One value per placeholder of `t`, in the order of `t.placeholders`. */
export async function resolveValues(t: ParsedTemplate, src: ValueSource): Promise<ResolvedValues> {
  const missing = t.placeholders.filter((p) => p.kind === 'param' && !Object.hasOwn(src.params, p.name));
  if (missing.length) {
    const errs: Record<string, string[]> = {};
    for (const p of missing) errs[`params.${(p as { name: string }).name}`] = ['Missing parameter.'];
    throw analyticsErrors.validation(errs, 'Missing template parameters.');
  }
  const values: unknown[] = [];
  const fromSecret: boolean[] = [];
  for (const p of t.placeholders) {
    values.push(await valueOf(p, src));
    fromSecret.push(p.kind !== 'param');
  }
  return { values, fromSecret };
}

async function valueOf(p: Placeholder, src: ValueSource): Promise<unknown> {
  if (p.kind === 'param') return src.params[p.name];
  if (p.kind === 'user') return userField(src.ctx, p.field);
  if (!src.external) throw analyticsErrors.validation({ query_text: ['Secret references are allowed in external queries only.'] });
  try {
    return await resolveSecretReference(src.ctx, src.appId, `secret.${p.key}${p.field ? `.${p.field}` : ''}`);
  } catch (e) {
    if (isAppError(e) && e.code === 'secret_resolution_error') {
      throw analyticsErrors.secretResolution('Secret not found.', { reference: `secret.${p.key}${p.field ? `.${p.field}` : ''}` });
    }
    throw e;
  }
}

async function userField(ctx: RequestContext, field: UserProfileField): Promise<unknown> {
  const principal = ctx.principal;
  if (principal.kind !== 'user') {
    throw analyticsErrors.secretResolution('secret.user_profile is only available to a signed-in user.', { field });
  }
  if (field === 'id') return principal.userId;
  if (field === 'username') return principal.username;
  if (field === 'is_staff') return principal.isStaff;
  if (field === 'is_superuser') return principal.isSuperuser;
  const row = principal.row ?? (await userRepository.findActiveById(ctx.platform.pool, principal.userId));
  if (!row) throw analyticsErrors.secretResolution('The current user was not found.', { field });
  return field === 'email' ? row.email : field === 'first_name' ? row.firstName : row.lastName;
}
