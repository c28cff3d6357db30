// Tenancy subgraph: queries and mutations of the organizations area (SDL in schema/tenancy/organizations.graphql).
// Adapters only: list arguments are the services' typed inputs; mutation inputs become the
// REST body the same service functions parse.
import type { ResolverMap } from '../../core/graphql/resolvers.js';
import { toConnection, type PageArgs } from '../../core/graphql/context.js';
import { listAudit, listOrganizationAudit, type AuditRecord } from '../audit.service.js';
import { acceptInvitation, declineInvitation, getInvitationByToken, type PublicInvitation } from '../invitation-response.service.js';
import {
  createInvitation,
  listInvitations,
  resendInvitation,
  revokeInvitation,
  type CreatedInvitation,
  type Invitation,
} from '../invitation.service.js';
import { getMember, listMembers, removeMember, updateMember, type Member } from '../member.service.js';
import {
  createOrganization,
  deleteOrganization,
  listOrganizations,
  restoreOrganization,
  updateOrganization,
} from '../organization.service.js';
import { toGraphOrganization } from '../tenancy.resolvers.js';

type Input = Record<string, unknown>;
type OrgArgs = { organization: string };
type Parent = { id: string };

const memberOut = (m: Member) => ({ ...m, id: m.uuid });

const invitationOut = (i: Invitation) => ({ ...i, id: i.uuid });

const createdOut = (c: CreatedInvitation) => ({ invitation: invitationOut(c.invitation), token: c.token });

const publicOut = (i: PublicInvitation) => ({ ...i, id: i.uuid, organization: { ...i.organization, id: i.organization.uuid } });

const auditOut = (a: AuditRecord) => ({ ...a, id: String(a.id) });

type AuditArgs = PageArgs & { objectType?: string | null; action?: string | null };

function invitationBody(input: Input): Input {
  const config = input.invitationConfig as { group?: string[]; site?: unknown[] } | null | undefined;
  const out: Input = { invitee_identifier: input.inviteeIdentifier };
  if (input.permissions != null) out.permissions = input.permissions;
  if (config) {
    out.invitation_config = {
      ...(config.group ? { group: config.group.map(Number) } : {}),
      ...(config.site ? { site: config.site } : {}),
    };
  }
  return out;
}

const defined = (input: Input): Input => Object.fromEntries(Object.entries(input).filter(([, v]) => v != null));

export const organizationAdminResolvers: ResolverMap = {
  Query: {
    member: (_p, a: OrgArgs & { user: string }, { ctx }) => getMember(ctx, a.organization, a.user).then(memberOut),
    invitation: (_p, a: { token: string }, { ctx }) => getInvitationByToken(ctx, a.token).then(publicOut),
    auditEntries: (_p, a: AuditArgs & { organization?: string | null }, { ctx }) =>
      listAudit(ctx, a).then((r) => toConnection(r, auditOut)),
  },
  Mutation: {
    createOrganization: (_p, a: { input: Input }, { ctx }) => createOrganization(ctx, defined(a.input)).then(toGraphOrganization),
    updateOrganization: (_p, a: { slug: string; input: Input }, { ctx }) =>
      updateOrganization(ctx, a.slug, defined(a.input), true).then(toGraphOrganization),
    deleteOrganization: (_p, a: { slug: string }, { ctx }) => deleteOrganization(ctx, a.slug).then(toGraphOrganization),
    restoreOrganization: (_p, a: { slug: string }, { ctx }) => restoreOrganization(ctx, a.slug).then(toGraphOrganization),
    updateMember: (_p, a: OrgArgs & { user: string; input: Input }, { ctx }) =>
      updateMember(ctx, a.organization, a.user, defined(a.input)).then(memberOut),
    removeMember: (_p, a: OrgArgs & { user: string }, { ctx }) => removeMember(ctx, a.organization, a.user).then(memberOut),
    createInvitation: (_p, a: OrgArgs & { input: Input }, { ctx }) =>
      createInvitation(ctx, a.organization, invitationBody(a.input)).then(createdOut),
    resendInvitation: (_p, a: OrgArgs & { id: string }, { ctx }) => resendInvitation(ctx, a.organization, a.id).then(createdOut),
    revokeInvitation: (_p, a: OrgArgs & { id: string }, { ctx }) => revokeInvitation(ctx, a.organization, a.id).then(invitationOut),
    acceptInvitation: (_p, a: { token: string; username?: string; password?: string }, { ctx }) =>
      acceptInvitation(ctx, a.token, defined({ username: a.username, password: a.password })).then((r) => ({
        organization: { ...r.organization, id: r.organization.uuid },
        member: memberOut(r.member),
      })),
    declineInvitation: (_p, a: { token: string }, { ctx }) => declineInvitation(ctx, a.token).then(publicOut),
  },
  User: {
    // The caller's own organizations (the `organizations` list); null on another user.
    organizations: (user: Parent, a: PageArgs, { ctx }) =>
      ctx.principal.kind === 'user' && ctx.principal.uuid === user.id.toLowerCase()
        ? listOrganizations(ctx, a).then((r) => toConnection(r, toGraphOrganization))
        : null,
  },
  Organization: {
    members: (org: Parent, a: PageArgs & { role?: string | null }, { ctx }) =>
      listMembers(ctx, org.id, a).then((r) => toConnection(r, memberOut)),
    invitations: (org: Parent, a: PageArgs & { status?: string | null }, { ctx }) =>
      listInvitations(ctx, org.id, a).then((r) => toConnection(r, invitationOut)),
    auditEntries: (org: Parent, a: AuditArgs, { ctx }) => listOrganizationAudit(ctx, org.id, a).then((r) => toConnection(r, auditOut)),
  },
};
