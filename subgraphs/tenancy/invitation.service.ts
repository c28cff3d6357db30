// Invitations, the inviter's side: create, list, resend, revoke (owners and holders of
// invite_members). The invitee's side (read, accept, decline by token) is in
// invitation-response.service.ts. A token is returned once, to the inviter, and mailed;
// only its SHA-256 is stored.
import crypto from 'node:crypto';
import type { RequestContext } from '../core/context.js';
import { errors } from '../core/errors.js';
import { pageRequest, type ListInput, type ListResult } from '../core/listing.js';
import { isUuid } from '../core/slug.js';
import { validate } from '../core/validate.js';
import { audit } from './audit-log.js';
import { invitationRepository, type InvitationConfig, type InvitationRow, type InvitationStatus } from './invitation.repository.js';
import { sendInvitationMail } from './mailer.js';
import { memberRepository } from './member.repository.js';
import { checkPermissions } from './member.service.js';
import { requireOrganization, type OrganizationRow } from './organization.service.js';
import { userRepository } from './user.repository.js';

/** An invitation as the services answer it (the inviter's side); each transport renders its own view. */
export interface Invitation {
  uuid: string;
  inviteeIdentifier: string;
  permissions: string[];
  invitationConfig: InvitationConfig;
  /** The effective status: a pending invitation past its expiry is `expired`. */
  status: InvitationStatus;
  expiresAt: Date;
  createdAt: Date;
  /** Username of the inviter. */
  invitedBy: string | null;
}

/** A created or renewed invitation and its token, which exists in this answer only. */
export interface CreatedInvitation {
  invitation: Invitation;
  token: string;
}

export const invitationStatus = (i: Pick<InvitationRow, 'status' | 'expiresAt'>): InvitationStatus =>
  i.status === 'pending' && i.expiresAt.getTime() <= Date.now() ? 'expired' : i.status;

const toInvitation = (i: InvitationRow): Invitation => ({
  uuid: i.uuid,
  inviteeIdentifier: i.inviteeIdentifier,
  permissions: i.permissions,
  invitationConfig: { group: i.invitationConfig.group ?? [], site: i.invitationConfig.site ?? [] },
  status: invitationStatus(i),
  expiresAt: i.expiresAt,
  createdAt: i.createdAt,
  invitedBy: i.invitedBy,
});

export const STATUSES: InvitationStatus[] = ['pending', 'accepted', 'declined', 'revoked', 'expired'];

/** A fresh token (256 bits, URL-safe) and the hash that is stored. */
function newToken(): { token: string; hash: string } {
  const token = crypto.randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string): string => crypto.createHash('sha256').update(token).digest('hex');

const expiry = (ctx: RequestContext) => new Date(Date.now() + ctx.platform.config.invitationExpiresDays * 86_400_000);

/** Permissions that make sense on one site: every one but the organization's own. */

interface CreateBody {
  invitee_identifier: string;
  permissions?: string[];
  invitation_config?: { group?: number[]; site?: { slug: string; permissions?: string[] }[] };
}

const PERMISSION_LIST = { type: 'array', items: { type: 'string' }, maxItems: 100 } as const;
const CREATE_SCHEMA = {
  type: 'object',
  required: ['invitee_identifier'],
  properties: {
    invitee_identifier: { type: 'string', format: 'email', maxLength: 254 },
    permissions: PERMISSION_LIST,
    invitation_config: {
      type: 'object',
      additionalProperties: false,
      properties: {
        group: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 100 },
        site: {
          type: 'array',
          maxItems: 100,
          items: {
            type: 'object',
            required: ['slug'],
            additionalProperties: false,
            properties: { slug: { type: 'string', minLength: 1, maxLength: 100 }, permissions: PERMISSION_LIST },
          },
        },
      },
    },
  },
} as const;

/** The config with its groups and sites checked against the organization (400 naming strays). */
async function checkConfig(
  ctx: RequestContext,
  org: OrganizationRow,
  raw: CreateBody['invitation_config'] = {},
): Promise<InvitationConfig> {
  const groupIds = [...new Set(raw.group ?? [])];
  const found = new Set(await invitationRepository.groupsOf(ctx.platform.pool, org.id, groupIds));
  const strayGroups = groupIds.filter((id) => !found.has(id));
  if (strayGroups.length) {
    throw errors.field('invitation_config.group', `Not groups of this organization: ${strayGroups.join(', ')}.`);
  }
  const entries = raw.site ?? [];
  const sites = await invitationRepository.sitesOf(
    ctx.platform.pool,
    org.id,
    entries.map((s) => s.slug),
  );
  const site: InvitationConfig['site'] = entries.map((entry, i) => {
    const match = sites.find((s) => s.slug === entry.slug || (isUuid(entry.slug) && s.uuid === entry.slug.toLowerCase()));
    if (!match) throw errors.field(`invitation_config.site.${i}.slug`, `"${entry.slug}" is not a site of this organization.`);
    return {
      slug: match.slug,
      permissions: checkPermissions(
        `invitation_config.site.${i}.permissions`,
        entry.permissions ?? [],
        ctx.platform.permissions.siteCodenames(),
      ),
    };
  });
  return { group: groupIds, site };
}

async function mail(ctx: RequestContext, org: OrganizationRow, row: InvitationRow, token: string, kind: 'created' | 'renewed') {
  await sendInvitationMail(ctx, {
    to: row.inviteeIdentifier,
    organizationName: org.name,
    organizationSlug: org.slug,
    invitationUuid: row.uuid,
    link: `${ctx.baseUrl}/api/invitations/${token}/`,
    expiresAt: row.expiresAt,
    inviter: ctx.principal.kind === 'user' ? ctx.principal.username : null,
    kind,
  });
}

/** `POST /api/organizations/{org}/invitations/`: 201 with the token, which is also mailed. */
export async function createInvitation(ctx: RequestContext, orgRef: string, input: unknown): Promise<CreatedInvitation> {
  const org = await requireOrganization(ctx, orgRef, { permission: 'invite_members' });
  const body = validate<CreateBody>(CREATE_SCHEMA, input);
  const invitee = body.invitee_identifier.trim();
  const permissions = checkPermissions('permissions', body.permissions ?? [], ctx.platform.permissions.codenames);
  const config = await checkConfig(ctx, org, body.invitation_config);
  const existing = await userRepository.findActiveByEmail(ctx.platform.prisma, invitee);
  if (existing && (await memberRepository.isMember(ctx.platform.prisma, org.id, existing.id))) {
    throw errors.conflict(`${invitee} is already a member of this organization.`, { invitee_identifier: ['Already a member.'] });
  }
  const { token, hash } = newToken();
  const row = await ctx.platform.prisma.$transaction(async (tx) => {
    if (await invitationRepository.hasOpen(tx, org.id, invitee)) {
      throw errors.conflict(`A pending invitation for ${invitee} exists: resend it instead.`, { invitee_identifier: ['Already invited.'] });
    }
    const created = await invitationRepository.insert(tx, {
      organizationId: org.id,
      invitee,
      permissions,
      config,
      tokenHash: hash,
      expiresAt: expiry(ctx),
      invitedById: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
    });
    await audit(tx, ctx, {
      action: 'create',
      objectType: 'invitation',
      objectId: created.uuid,
      organizationId: org.id,
      changes: { invitee_identifier: invitee, permissions, invitation_config: config },
    });
    return created;
  });
  await mail(ctx, org, row, token, 'created');
  return { invitation: toInvitation(row), token };
}

export interface InvitationListInput extends Omit<ListInput, 'search' | 'ordering'> {
  /** One of STATUSES. */
  status?: string | null;
}

export async function listInvitations(ctx: RequestContext, orgRef: string, input: InvitationListInput): Promise<ListResult<Invitation>> {
  const org = await requireOrganization(ctx, orgRef, { permission: 'invite_members' });
  const page = pageRequest(input);
  const status = input.status || undefined;
  if (status && !STATUSES.includes(status as InvitationStatus)) throw errors.field('status', `Use one of: ${STATUSES.join(', ')}.`);
  const { rows, count } = await invitationRepository.list(ctx.platform.pool, org.id, status as InvitationStatus | undefined, page);
  return { page, count, items: rows.map(toInvitation) };
}

async function findInvitation(ctx: RequestContext, org: OrganizationRow, uuid: string): Promise<InvitationRow> {
  const row = isUuid(uuid) ? await invitationRepository.findByUuid(ctx.platform.pool, org.id, uuid.toLowerCase()) : null;
  if (!row) throw errors.notFound('Invitation not found.');
  return row;
}

const notPending = (row: InvitationRow) => errors.invalid(`The invitation is ${invitationStatus(row)}, not pending.`);

/** `POST …/invitations/{uuid}/resend/`: a new token and a new expiry (also for an expired one). */
export async function resendInvitation(ctx: RequestContext, orgRef: string, uuid: string): Promise<CreatedInvitation> {
  const org = await requireOrganization(ctx, orgRef, { permission: 'invite_members' });
  const current = await findInvitation(ctx, org, uuid);
  const { token, hash } = newToken();
  const row = await ctx.platform.prisma.$transaction(async (tx) => {
    const renewed = await invitationRepository.renew(tx, current.id, hash, expiry(ctx));
    if (!renewed) throw notPending(current);
    await audit(tx, ctx, {
      action: 'resend',
      objectType: 'invitation',
      objectId: current.uuid,
      organizationId: org.id,
      changes: { expires_at: renewed.expiresAt.toISOString() },
    });
    return renewed;
  });
  await mail(ctx, org, row, token, 'renewed');
  return { invitation: toInvitation(row), token };
}

/** `DELETE …/invitations/{uuid}/`: revokes a pending invitation (its token stops working). */
/** Revokes a pending invitation; answers it as it is now (status revoked). */
export async function revokeInvitation(ctx: RequestContext, orgRef: string, uuid: string): Promise<Invitation> {
  const org = await requireOrganization(ctx, orgRef, { permission: 'invite_members' });
  const current = await findInvitation(ctx, org, uuid);
  await ctx.platform.prisma.$transaction(async (tx) => {
    if (!(await invitationRepository.transition(tx, current.id, 'revoked', { unexpired: false }))) throw notPending(current);
    await audit(tx, ctx, {
      action: 'revoke',
      objectType: 'invitation',
      objectId: current.uuid,
      organizationId: org.id,
      changes: { status: 'revoked' },
    });
  });
  return { ...toInvitation(current), status: 'revoked' };
}
