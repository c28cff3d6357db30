// The REST views of users, profiles, groups, members, invitations, API keys and the audit
// trail (seed 1 "Users, groups, permissions"; DECISIONS §4): the seed's snake_case shapes
// rendered from the services' domain objects. Used by the REST routes only; GraphQL maps the
// same objects in tenancy.resolvers.ts and graphql/*.resolvers.ts.
import type { ApiKey } from './api-key-admin.service.js';
import type { AuditRecord } from './audit.service.js';
import type { GroupRecord } from './group.repository.js';
import type { AcceptResult, PublicInvitation } from './invitation-response.service.js';
import type { CreatedInvitation, Invitation } from './invitation.service.js';
import type { Member } from './member.service.js';
import type { Profile } from './profile.service.js';

/** A user (`/api/users/`, `/api/users/me/`, the auth routes' `user`): the API's user view. */
export { toUserView as toUserRest } from './user-account.js';

/** JSON Schema of the user view, for the compiled serializer of the hot `/users/me/` route. */
export const USER_REST_SCHEMA = {
  type: 'object',
  properties: {
    uuid: { type: 'string' },
    slug: { type: 'string' },
    username: { type: 'string' },
    email: { type: 'string' },
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    is_staff: { type: 'boolean' },
    is_superuser: { type: 'boolean' },
    is_active: { type: 'boolean' },
    date_joined: { type: 'string' },
    last_login: { type: ['string', 'null'] },
  },
  required: [
    'uuid',
    'slug',
    'username',
    'email',
    'first_name',
    'last_name',
    'is_staff',
    'is_superuser',
    'is_active',
    'date_joined',
    'last_login',
  ],
} as const;

export const toProfileRest = (p: Profile) => ({
  user: p.userUuid,
  bio: p.bio,
  avatar_url: p.avatarUrl,
  phone: p.phone,
  timezone: p.timezone,
  locale: p.locale,
  attributes: p.attributes,
});

/** A group; `organization` is the organization's slug (null for a platform group). */
export const toGroupRest = (g: GroupRecord) => ({
  id: g.id,
  name: g.name,
  scope: g.scope,
  organization: g.organizationSlug,
  permissions: g.permissions,
  users: g.users,
  created_at: new Date(g.createdAt).toISOString(),
  updated_at: new Date(g.updatedAt).toISOString(),
});

/** A member of an organization (`/api/organizations/{org}/members/`, an accepted invitation). */
export const toMemberRest = (m: Member) => ({
  uuid: m.uuid,
  slug: m.slug,
  username: m.username,
  email: m.email,
  role: m.role,
  permissions: m.permissions,
  joined_at: m.joinedAt.toISOString(),
});

/** An invitation as its inviter sees it. */
export const toInvitationRest = (i: Invitation) => ({
  uuid: i.uuid,
  invitee_identifier: i.inviteeIdentifier,
  permissions: i.permissions,
  invitation_config: i.invitationConfig,
  status: i.status,
  expires_at: i.expiresAt.toISOString(),
  created_at: i.createdAt.toISOString(),
  invited_by: i.invitedBy,
});

/** A created or renewed invitation: the invitation and, beside its fields, the token. */
export const toCreatedInvitationRest = (c: CreatedInvitation) => ({ ...toInvitationRest(c.invitation), token: c.token });

/** An invitation as its invitee sees it (`/api/invitations/{token}/`). */
export const toPublicInvitationRest = (i: PublicInvitation) => ({
  uuid: i.uuid,
  organization: i.organization,
  invitee_identifier: i.inviteeIdentifier,
  permissions: i.permissions,
  status: i.status,
  expires_at: i.expiresAt.toISOString(),
});

export const toAcceptResultRest = (r: AcceptResult) => ({
  status: r.status,
  organization: r.organization,
  member: toMemberRest(r.member),
});

/** An app's API key (never the key itself: a create answer adds `key` beside these fields). */
export const toApiKeyRest = (k: ApiKey) => ({
  id: k.id,
  uuid: k.uuid,
  name: k.name,
  prefix: k.prefix,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

export const toAuditRest = (a: AuditRecord) => ({
  id: a.id,
  actor: a.actor,
  action: a.action,
  object_type: a.objectType,
  object_id: a.objectId,
  organization: a.organization,
  changes: a.changes,
  created_at: a.createdAt.toISOString(),
});
