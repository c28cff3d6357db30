// Invitations, the invitee's side: read, accept or decline by token, signed in or not.
// Accepting applies everything the invitation carries in one transaction: the membership
// (role member and its permissions), the group memberships and the site grants; when no user
// has the invited address yet, the user is created in that same transaction.
import type { RequestContext, UserPrincipal } from '../core/context.js';
import type { Tx } from '../core/db.js';
import { isUniqueViolation } from '../core/db.js';
import { errors } from '../core/errors.js';
import { validate } from '../core/validate.js';
import { audit } from './audit-log.js';
import { invitationRepository, type InvitationStatus, type TokenInvitationRow } from './invitation.repository.js';
import { hashToken, invitationStatus } from './invitation.service.js';
import { memberRepository } from './member.repository.js';
import type { Member } from './member.service.js';
import { hashPassword } from './password.js';
import { userRepository, type User } from './user.repository.js';

/** An invitation as its invitee sees it, with what they are shown of the organization. */
export interface PublicInvitation {
  uuid: string;
  organization: { uuid: string; slug: string; name: string };
  inviteeIdentifier: string;
  permissions: string[];
  /** The effective status: a pending invitation past its expiry is `expired`. */
  status: InvitationStatus;
  expiresAt: Date;
}

export interface AcceptResult {
  status: 'accepted';
  organization: PublicInvitation['organization'];
  member: Member;
}

const organizationOf = (i: TokenInvitationRow): PublicInvitation['organization'] => ({
  uuid: i.organizationUuid,
  slug: i.organizationSlug,
  name: i.organizationName,
});

const toPublicInvitation = (i: TokenInvitationRow): PublicInvitation => ({
  uuid: i.uuid,
  organization: organizationOf(i),
  inviteeIdentifier: i.inviteeIdentifier,
  permissions: i.permissions,
  status: invitationStatus(i),
  expiresAt: i.expiresAt,
});

// Tokens are 43 URL-safe characters; anything else cannot match and is not looked up.
const TOKEN_RE = /^[A-Za-z0-9_-]{20,100}$/;

async function byToken(ctx: RequestContext, token: string): Promise<TokenInvitationRow> {
  const row = TOKEN_RE.test(token) ? await invitationRepository.findByTokenHash(ctx.platform.pool, hashToken(token)) : null;
  if (!row) throw errors.notFound('Invitation not found.');
  return row;
}

const alreadyUsed = (status: InvitationStatus) => errors.invalid(`This invitation is ${status} and can no longer be used.`);

/** The invitation as long as it can still be used (pending and unexpired), else 400. */
async function usable(ctx: RequestContext, token: string): Promise<TokenInvitationRow> {
  const row = await byToken(ctx, token);
  const status = invitationStatus(row);
  if (status !== 'pending') throw alreadyUsed(status);
  return row;
}

/** `GET /api/invitations/{token}/`: what the invitee needs to decide. */
export async function getInvitationByToken(ctx: RequestContext, token: string): Promise<PublicInvitation> {
  return toPublicInvitation(await byToken(ctx, token));
}

interface SignUpBody {
  username: string;
  password: string;
}

const SIGN_UP_SCHEMA = {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 150, pattern: '^[A-Za-z0-9@.+_-]+$' },
    password: { type: 'string', minLength: 8, maxLength: 1024 },
  },
} as const;

/** Who accepts: the signed-in user with the invited address, or a new user made from the body. */
type Acceptor = { kind: 'existing'; user: User } | { kind: 'new'; username: string; passwordHash: string };

async function acceptor(ctx: RequestContext, inv: TokenInvitationRow, input: unknown): Promise<Acceptor> {
  const email = inv.inviteeIdentifier.toLowerCase();
  if (ctx.principal.kind === 'api_key') throw errors.permissionDenied('An invitation is accepted by a person, not an API key.');
  if (ctx.principal.kind === 'user') {
    const me = await userRepository.findActiveById(ctx.platform.pool, ctx.principal.userId);
    if (!me || me.email.toLowerCase() !== email) throw errors.permissionDenied('This invitation is for another e-mail address.');
    return { kind: 'existing', user: me };
  }
  if (await userRepository.findActiveByEmail(ctx.platform.prisma, inv.inviteeIdentifier)) {
    throw errors.notAuthenticated('A user with this e-mail address exists: sign in as that user to accept.');
  }
  const body = validate<SignUpBody>(SIGN_UP_SCHEMA, input);
  if (await userRepository.usernameTaken(ctx.platform.prisma, body.username)) {
    throw errors.conflict(`The username "${body.username}" is taken.`, { username: ['Already taken.'] });
  }
  return { kind: 'new', username: body.username, passwordHash: await hashPassword(body.password) };
}

/** A context acting as the accepting user, so the audit trail names them as the actor. */
const actingAs = (ctx: RequestContext, u: User): RequestContext => {
  const principal: UserPrincipal = {
    kind: 'user',
    via: 'session',
    userId: u.id,
    uuid: u.uuid,
    username: u.username,
    isStaff: u.isStaff,
    isSuperuser: u.isSuperuser,
  };
  return ctx.principal.kind === 'user' ? ctx : { ...ctx, principal };
};

/** Groups and sites of the invitation that still exist when it is accepted. */
async function grantsOf(ctx: RequestContext, inv: TokenInvitationRow) {
  const config = inv.invitationConfig;
  const groups = await invitationRepository.groupsOf(ctx.platform.pool, inv.organizationId, config.group ?? []);
  const sites = await invitationRepository.sitesOf(
    ctx.platform.pool,
    inv.organizationId,
    (config.site ?? []).map((s) => s.slug),
  );
  const siteGrants = (config.site ?? []).flatMap((entry) => {
    const site = sites.find((s) => s.slug === entry.slug);
    return site ? entry.permissions.map((permission) => ({ siteId: site.id, permission })) : [];
  });
  return { groups, siteGrants, siteSlugs: sites.map((s) => s.slug) };
}

async function createAcceptor(tx: Tx, ctx: RequestContext, inv: TokenInvitationRow, who: Acceptor & { kind: 'new' }): Promise<User> {
  try {
    const user = await userRepository.create(tx, { username: who.username, email: inv.inviteeIdentifier, passwordHash: who.passwordHash });
    await audit(tx, actingAs(ctx, user), {
      action: 'create',
      objectType: 'user',
      objectId: user.uuid,
      organizationId: inv.organizationId,
      changes: { username: user.username, email: user.email, via: 'invitation' },
    });
    return user;
  } catch (e) {
    if (userRepository.isEmailConflict(e)) {
      throw errors.conflict('An active account already uses the invited e-mail address.', { email: ['Already in use.'] });
    }
    if (isUniqueViolation(e)) throw errors.conflict(`The username "${who.username}" is taken.`, { username: ['Already taken.'] });
    throw e;
  }
}

/** `POST /api/invitations/{token}/accept/`. */
export async function acceptInvitation(ctx: RequestContext, token: string, input: unknown): Promise<AcceptResult> {
  const inv = await usable(ctx, token);
  const who = await acceptor(ctx, inv, input);
  const grants = await grantsOf(ctx, inv);
  const user = await ctx.platform.prisma.$transaction(async (tx) => {
    // First the invitation, so a concurrent accept waits and then finds it used (before it
    // would create a second account for the same address).
    if (!(await invitationRepository.lockPending(tx, inv.id))) throw alreadyUsed(invitationStatus(await byToken(ctx, token)));
    const u = who.kind === 'existing' ? who.user : await createAcceptor(tx, ctx, inv, who);
    if (!(await invitationRepository.transition(tx, inv.id, 'accepted', { unexpired: true, acceptedById: u.id }))) {
      throw alreadyUsed(invitationStatus(await byToken(ctx, token)));
    }
    await memberRepository.join(tx, inv.organizationId, u.id, inv.permissions);
    await invitationRepository.addToGroups(tx, u.id, grants.groups);
    await invitationRepository.grantSites(tx, u.id, grants.siteGrants);
    await audit(tx, actingAs(ctx, u), {
      action: 'accept',
      objectType: 'invitation',
      objectId: inv.uuid,
      organizationId: inv.organizationId,
      changes: { user: u.username, permissions: inv.permissions, groups: grants.groups, sites: grants.siteSlugs },
    });
    return u;
  });
  const member = await memberRepository.findOne(ctx.platform.pool, inv.organizationId, { uuid: user.uuid });
  return { status: 'accepted', organization: organizationOf(inv), member: member! };
}

/** `POST /api/invitations/{token}/decline/`: whoever holds the token may decline. */
export async function declineInvitation(ctx: RequestContext, token: string): Promise<PublicInvitation> {
  const inv = await usable(ctx, token);
  await ctx.platform.prisma.$transaction(async (tx) => {
    if (!(await invitationRepository.transition(tx, inv.id, 'declined', { unexpired: true }))) {
      throw alreadyUsed(invitationStatus(await byToken(ctx, token)));
    }
    await audit(tx, ctx, {
      action: 'decline',
      objectType: 'invitation',
      objectId: inv.uuid,
      organizationId: inv.organizationId,
      changes: { status: 'declined' },
    });
  });
  return { ...toPublicInvitation(inv), status: 'declined' };
}
