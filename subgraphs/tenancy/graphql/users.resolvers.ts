// Tenancy subgraph: queries and mutations of the users area (SDL in schema/tenancy/users.graphql).
// Adapters only: list arguments are the services' typed inputs as they are; mutation inputs
// become the REST-shaped bodies the services validate, so both transports share one set of rules.
import type { ResolverMap } from '../../core/graphql/resolvers.js';
import DataLoader from 'dataloader';
import { isAppError } from '../../core/errors.js';
import { perRequest, toConnection, type PageArgs, type SubgraphContext } from '../../core/graphql/context.js';
import {
  addGroupMember,
  createGroup,
  deleteGroup,
  findVisibleGroups,
  getGroup,
  listGroups,
  removeGroupMember,
  updateGroup,
} from '../group.service.js';
import type { GroupRecord } from '../group.repository.js';
import { listPermissions } from '../permission.service.js';
import { getProfile, updateProfile, type Profile } from '../profile.service.js';
import { createUser, deleteUser, getUser, listUsers, updateUser } from '../user.service.js';
import { toGraphUser } from '../tenancy.resolvers.js';

type Input = Record<string, unknown>;

const groupFromRecord = (g: GroupRecord) => ({
  ...g,
  id: String(g.id),
  users: g.users.map((u) => ({ id: u.uuid, username: u.username })),
});

const profileOut = (p: Profile) => ({
  bio: p.bio,
  avatarUrl: p.avatarUrl,
  phone: p.phone,
  timezone: p.timezone,
  locale: p.locale,
  attributes: p.attributes,
});

/** camelCase GraphQL input → the snake_case body of the REST route; absent stays absent. */
function snakeBody(input: Input): Input {
  const out: Input = {};
  for (const [k, v] of Object.entries(input)) {
    if (v !== undefined) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  }
  return out;
}

/** Groups referenced by id, one query per request (replaces the narrower reference loader: full records). */
const groupLoader = (c: SubgraphContext) =>
  perRequest(
    c,
    'tenancy-users-groups',
    (ctx) =>
      new DataLoader<string, GroupRecord | null>(async (ids) => {
        const numeric = ids.filter((id) => /^\d{1,9}$/.test(id)).map(Number);
        const found = new Map((await findVisibleGroups(ctx, numeric)).map((g) => [String(g.id), g]));
        return ids.map((id) => found.get(id) ?? null);
      }),
  );

type ListArgs = PageArgs & { organizationSlug?: string | null };

export const userAdminResolvers: ResolverMap = {
  Query: {
    users: (_p, args: ListArgs, { ctx }) => listUsers(ctx, args).then((r) => toConnection(r, toGraphUser)),
    user: (_p, args: { slug: string }, { ctx }) => getUser(ctx, args.slug).then(toGraphUser),
    groups: (_p, args: ListArgs, { ctx }) => listGroups(ctx, args).then((r) => toConnection(r, groupFromRecord)),
    group: (_p, args: { id: string }, { ctx }) => getGroup(ctx, args.id).then(groupFromRecord),
    permissions: (_p, args: { resource?: string | null }, { ctx }) =>
      listPermissions(ctx, { pageSize: 100, resource: args.resource }).then((r) => r.items),
  },
  Mutation: {
    createUser: (_p, args: { input: Input }, { ctx }) => createUser(ctx, snakeBody(args.input)).then(toGraphUser),
    updateUser: (_p, args: { slug: string; input: Input }, { ctx }) =>
      updateUser(ctx, args.slug, snakeBody(args.input), 'patch').then(toGraphUser),
    deleteUser: (_p, args: { slug: string }, { ctx }) => deleteUser(ctx, args.slug).then(toGraphUser),
    updateProfile: (_p, args: { slug: string; input: Input }, { ctx }) =>
      updateProfile(ctx, args.slug, snakeBody(args.input)).then(profileOut),
    createGroup: (_p, args: { input: Input }, { ctx }) => createGroup(ctx, args.input).then(groupFromRecord),
    updateGroup: (_p, args: { id: string; input: Input }, { ctx }) =>
      updateGroup(ctx, args.id, snakeBody(args.input), 'patch').then(groupFromRecord),
    deleteGroup: (_p, args: { id: string }, { ctx }) => deleteGroup(ctx, args.id).then(groupFromRecord),
    addGroupMember: (_p, args: { id: string; user: string }, { ctx }) =>
      addGroupMember(ctx, args.id, { user: args.user }).then(groupFromRecord),
    removeGroupMember: (_p, args: { id: string; user: string }, { ctx }) =>
      removeGroupMember(ctx, args.id, args.user).then(groupFromRecord),
  },
  Group: {
    __resolveReference: (ref: { id: string }, c: SubgraphContext) =>
      groupLoader(c)
        .load(ref.id)
        .then((g) => (g ? groupFromRecord(g) : null)),
  },
  User: {
    // Only the user and staff may read a profile: for anyone else the field is null, not an error.
    profile: (user: { id: string }, _a, { ctx }) =>
      getProfile(ctx, user.id).then(profileOut, (e) => {
        if (isAppError(e) && (e.status === 403 || e.status === 404)) return null;
        throw e;
      }),
  },
};
