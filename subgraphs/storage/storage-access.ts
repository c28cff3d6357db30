// Who may do what in a bucket (seed 2 "Authentication" 3, DECISIONS §8, issue 13 item 7).
//
// Private bucket: its owner (creator), staff and superusers, holders of the matching
// `storage:<op>` permission on the site, and the app's API key. Public bucket: anyone reads,
// including anonymous callers; signed-in users with access to the site also write. An object's
// own `visibility` overrides its bucket's for reads of that object.
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { can } from '../tenancy/tenancy.api.js';
import type { BucketRow } from './storage.repository.js';
import { storageErrors } from './storage-errors.js';

export type StorageOp = 'read' | 'create' | 'update' | 'delete';

export const PERMISSION: Record<StorageOp, string> = {
  read: 'storage:read',
  create: 'storage:create',
  update: 'storage:update',
  delete: 'storage:delete',
};

export function isOperator(ctx: RequestContext): boolean {
  const p = ctx.principal;
  return p.kind === 'user' && (p.isStaff || p.isSuperuser);
}

export const userIdOf = (ctx: RequestContext): number | null => (ctx.principal.kind === 'user' ? ctx.principal.userId : null);

/** True when the caller may do `op` on `bucket` (or on an object of it with `visibility`). */
export async function mayAccess(
  ctx: RequestContext,
  bucket: Pick<BucketRow, 'siteId' | 'appId' | 'visibility' | 'createdById'>,
  op: StorageOp,
  objectVisibility?: 'public' | 'private' | null,
): Promise<boolean> {
  const p = ctx.principal;
  const visibility = objectVisibility ?? bucket.visibility;
  if (p.kind === 'api_key') return p.appId === bucket.appId && p.siteId === bucket.siteId;
  if (isOperator(ctx)) return true;
  if (op === 'read' && visibility === 'public') return true;
  if (p.kind !== 'user') return false;
  if (bucket.createdById === p.userId) return true;
  if (await can(ctx, PERMISSION[op], 'site', bucket.siteId)) return true;
  if (visibility === 'public') return can(ctx, 'view_site', 'site', bucket.siteId);
  return false;
}

/** 401 for an anonymous caller, 403 for any other, unless `mayAccess`. */
export async function requireAccess(
  ctx: RequestContext,
  bucket: Pick<BucketRow, 'siteId' | 'appId' | 'visibility' | 'createdById'>,
  op: StorageOp,
  objectVisibility?: 'public' | 'private' | null,
): Promise<void> {
  if (await mayAccess(ctx, bucket, op, objectVisibility)) return;
  throw await refusal(ctx, bucket.siteId);
}

/** True when the caller can see the site at all (view_site or storage:read, staff, its apps' API keys). */
export async function seesSite(ctx: RequestContext, siteId: number): Promise<boolean> {
  const p = ctx.principal;
  if (p.kind === 'api_key') return p.siteId === siteId;
  if (isOperator(ctx)) return true;
  if (p.kind !== 'user') return false;
  return (await can(ctx, 'view_site', 'site', siteId)) || can(ctx, 'storage:read', 'site', siteId);
}

/**
 * The answer to a refused caller: one who cannot even see the site (anonymous included)
 * learns nothing about what it holds — the same 404 as for a bucket that does not exist;
 * members without the permission get 403.
 */
export async function refusal(ctx: RequestContext, siteId: number): Promise<Error> {
  if (!(await seesSite(ctx, siteId))) return storageErrors.bucketNotFound();
  return errors.permissionDenied();
}
