// REST routes of organizations, their members, invitations and audit trail (seed 1,
// DECISIONS §4). Adapters only: parse, call one service function, shape the answer.
import type { RestInput, RouteSpec } from '../core/rest.js';
import { RestResult } from '../core/rest.js';
import type { RequestContext } from '../core/context.js';
import { listInputFromQuery, parseBool, toPage, type ListResult } from '../core/listing.js';
import { listAudit, listOrganizationAudit } from './audit.service.js';
import { acceptInvitation, declineInvitation, getInvitationByToken } from './invitation-response.service.js';
import { createInvitation, listInvitations, resendInvitation, revokeInvitation } from './invitation.service.js';
import { getMember, listMembers, removeMember, updateMember } from './member.service.js';
import {
  toAcceptResultRest,
  toAuditRest,
  toCreatedInvitationRest,
  toInvitationRest,
  toMemberRest,
  toPublicInvitationRest,
} from './users-views.js';
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  ORGANIZATION_CREATE_SCHEMA,
  ORGANIZATION_PATCH_SCHEMA,
  restoreOrganization,
  updateOrganization,
} from './organization.service.js';
import { toOrganizationRest } from './organization-views.js';

type Spec = Omit<RouteSpec, 'module' | 'scope' | 'auth'> & Partial<Pick<RouteSpec, 'scope' | 'auth'>>;

const route = (s: Spec): RouteSpec => ({ scope: 'console', auth: 'required', module: 'tenancy', ...s });

/** A list service's answer as the console's page `{count, next, previous, results}`. */
const paged =
  (list: (ctx: RequestContext, input: RestInput) => Promise<ListResult<unknown>>) => async (ctx: RequestContext, input: RestInput) => {
    const { page, count, items } = await list(ctx, input);
    return toPage(ctx.baseUrl + input.url, page, count, items);
  };

/** The audit trail's filters (`?object_type&object_id&action&actor`). */
const AUDIT_FILTERS = { object_type: 'string', object_id: 'string', action: 'string', actor: 'string' } as const;

// Token-bearing answers must not be stored by browsers or proxies.
const NO_STORE = { 'Cache-Control': 'no-store' };

const organizations: RouteSpec[] = [
  route({
    method: 'GET',
    path: '/organizations/',
    permission: null,
    summary: 'List organizations the caller can view',
    handler: async (ctx, input) => {
      const r = await listOrganizations(ctx, listInputFromQuery(input.query, { include_deleted: 'boolean', is_active: 'boolean' }));
      return toPage(ctx.baseUrl + input.url, r.page, r.count, r.items.map(toOrganizationRest));
    },
  }),
  route({
    method: 'POST',
    path: '/organizations/',
    permission: null,
    summary: 'Create an organization; the caller becomes its owner',
    requestSchema: ORGANIZATION_CREATE_SCHEMA,
    handler: async (ctx, input) => toOrganizationRest(await createOrganization(ctx, input.body)),
  }),
  route({
    method: 'GET',
    path: '/organizations/:org/',
    permission: 'view_organization',
    summary: 'One organization by slug or UUID',
    handler: async (ctx, input) =>
      toOrganizationRest(await getOrganization(ctx, input.params.org, { includeDeleted: parseBool(input.query, 'include_deleted') })),
  }),
  route({
    method: 'PUT',
    path: '/organizations/:org/',
    permission: 'change_organization',
    summary: 'Update an organization {name, slug}',
    requestSchema: ORGANIZATION_CREATE_SCHEMA,
    handler: async (ctx, input) => toOrganizationRest(await updateOrganization(ctx, input.params.org, input.body, false)),
  }),
  route({
    method: 'PATCH',
    path: '/organizations/:org/',
    permission: 'change_organization',
    summary: 'Partly update an organization',
    requestSchema: ORGANIZATION_PATCH_SCHEMA,
    handler: async (ctx, input) => toOrganizationRest(await updateOrganization(ctx, input.params.org, input.body, true)),
  }),
  route({
    method: 'DELETE',
    path: '/organizations/:org/',
    permission: 'delete_organization',
    summary: 'Soft-delete an organization, its sites and their domains',
    handler: (ctx, input) => deleteOrganization(ctx, input.params.org),
  }),
  route({
    method: 'POST',
    path: '/organizations/:org/restore/',
    permission: 'delete_organization',
    status: 200,
    summary: 'Restore an organization and what its deletion cascaded to',
    handler: async (ctx, input) => toOrganizationRest(await restoreOrganization(ctx, input.params.org)),
  }),
];

/** A list service's page with its items rendered as REST views (users-views.ts). */
const viewed = <T, V>(r: ListResult<T>, view: (item: T) => V): ListResult<V> => ({ ...r, items: r.items.map(view) });

const members: RouteSpec[] = [
  route({
    method: 'GET',
    path: '/organizations/:org/members/',
    permission: 'view_organization',
    summary: 'Members of an organization',
    handler: paged(async (ctx, input) =>
      viewed(await listMembers(ctx, input.params.org, listInputFromQuery(input.query, { role: 'string' })), toMemberRest),
    ),
  }),
  route({
    method: 'GET',
    path: '/organizations/:org/members/:user/',
    permission: 'view_organization',
    summary: 'One member by user slug or UUID',
    handler: async (ctx, input) => toMemberRest(await getMember(ctx, input.params.org, input.params.user)),
  }),
  route({
    method: 'PATCH',
    path: '/organizations/:org/members/:user/',
    permission: 'manage_organization',
    summary: "Change a member's role or permissions",
    handler: async (ctx, input) => toMemberRest(await updateMember(ctx, input.params.org, input.params.user, input.body)),
  }),
  route({
    method: 'DELETE',
    path: '/organizations/:org/members/:user/',
    permission: 'manage_organization',
    summary: 'Remove a member (or leave)',
    handler: (ctx, input) => removeMember(ctx, input.params.org, input.params.user),
  }),
];

const invitations: RouteSpec[] = [
  route({
    method: 'GET',
    path: '/organizations/:org/invitations/',
    permission: 'invite_members',
    summary: 'Invitations of an organization',
    handler: paged(async (ctx, input) =>
      viewed(await listInvitations(ctx, input.params.org, listInputFromQuery(input.query, { status: 'string' })), toInvitationRest),
    ),
  }),
  route({
    method: 'POST',
    path: '/organizations/:org/invitations/',
    permission: 'invite_members',
    summary: 'Invite someone by e-mail; answers the token once',
    handler: async (ctx, input) =>
      new RestResult(201, toCreatedInvitationRest(await createInvitation(ctx, input.params.org, input.body)), NO_STORE),
  }),
  route({
    method: 'POST',
    path: '/organizations/:org/invitations/:uuid/resend/',
    permission: 'invite_members',
    summary: 'Renew the token and expiry of an invitation and mail it again',
    handler: async (ctx, input) =>
      new RestResult(200, toCreatedInvitationRest(await resendInvitation(ctx, input.params.org, input.params.uuid)), NO_STORE),
  }),
  route({
    method: 'DELETE',
    path: '/organizations/:org/invitations/:uuid/',
    permission: 'invite_members',
    summary: 'Revoke a pending invitation',
    handler: (ctx, input) => revokeInvitation(ctx, input.params.org, input.params.uuid),
  }),
  // The invitee's side: the token is the credential, signing in is optional.
  route({
    method: 'GET',
    path: '/invitations/:token/',
    permission: null,
    auth: 'optional',
    summary: 'Read an invitation by its token',
    handler: async (ctx, input) => toPublicInvitationRest(await getInvitationByToken(ctx, input.params.token)),
  }),
  route({
    method: 'POST',
    path: '/invitations/:token/accept/',
    permission: null,
    auth: 'optional',
    status: 200,
    summary: 'Accept an invitation (signed in with the invited address, or {username, password} to sign up)',
    handler: async (ctx, input) => toAcceptResultRest(await acceptInvitation(ctx, input.params.token, input.body)),
  }),
  route({
    method: 'POST',
    path: '/invitations/:token/decline/',
    permission: null,
    auth: 'optional',
    status: 200,
    summary: 'Decline an invitation',
    handler: async (ctx, input) => toPublicInvitationRest(await declineInvitation(ctx, input.params.token)),
  }),
];

const auditTrail: RouteSpec[] = [
  route({
    method: 'GET',
    path: '/organizations/:org/audit/',
    permission: 'manage_organization',
    summary: "An organization's audit trail",
    handler: paged(async (ctx, input) =>
      viewed(
        await listOrganizationAudit(
          ctx,
          input.params.org,
          listInputFromQuery(input.query, { ...AUDIT_FILTERS, include_deleted: 'boolean' }),
        ),
        toAuditRest,
      ),
    ),
  }),
  route({
    method: 'GET',
    path: '/audit/',
    permission: null,
    summary: 'The whole audit trail (staff)',
    handler: paged(async (ctx, input) =>
      viewed(await listAudit(ctx, listInputFromQuery(input.query, { ...AUDIT_FILTERS, organization: 'string' })), toAuditRest),
    ),
  }),
];

export const organizationsRoutes: RouteSpec[] = [...organizations, ...members, ...invitations, ...auditTrail];
