// REST routes of the users area: users, profiles, groups and the permission catalogue
// (seed 1 "Users, groups, permissions"; DECISIONS §4). Adapters only: each calls one service
// and renders its domain object as the REST view (users-views.ts).
import type { RouteSpec } from '../core/rest.js';
import { listInputFromQuery, parseBool, toPage } from '../core/listing.js';
import { addGroupMember, createGroup, deleteGroup, getGroup, listGroups, removeGroupMember, updateGroup } from './group.service.js';
import { listPermissions } from './permission.service.js';
import { getProfile, updateProfile } from './profile.service.js';
import { createUser, deleteUser, getMe, getUser, listUsers, restoreUser, updateUser } from './user.service.js';
import { toGroupRest, toProfileRest, toUserRest, USER_REST_SCHEMA } from './users-views.js';

const route = (spec: Omit<RouteSpec, 'scope' | 'auth' | 'module'>): RouteSpec => ({
  scope: 'console',
  auth: 'required',
  module: 'tenancy',
  ...spec,
});

export const usersRoutes: RouteSpec[] = [
  route({
    method: 'GET',
    path: '/users/me/',
    permission: null,
    summary: 'The signed-in user',
    responseSchema: USER_REST_SCHEMA,
    handler: async (ctx) => toUserRest(await getMe(ctx)),
  }),
  route({
    method: 'GET',
    path: '/users/',
    permission: null,
    summary: 'Users the caller can see (staff: all; others: themselves and fellow members)',
    handler: async (ctx, input) => {
      const { page, count, items } = await listUsers(
        ctx,
        listInputFromQuery(input.query, { include_deleted: 'boolean', is_active: 'boolean', organization_slug: 'string' }),
      );
      return toPage(ctx.baseUrl + input.url, page, count, items.map(toUserRest));
    },
  }),
  route({
    method: 'POST',
    path: '/users/',
    permission: null,
    summary: 'Create a user (staff)',
    handler: async (ctx, input) => toUserRest(await createUser(ctx, input.body)),
  }),
  route({
    method: 'GET',
    path: '/users/:user/',
    permission: null,
    summary: 'One user by slug or UUID',
    handler: async (ctx, input) =>
      toUserRest(await getUser(ctx, input.params.user, { includeDeleted: parseBool(input.query, 'include_deleted') })),
  }),
  route({
    method: 'PUT',
    path: '/users/:user/',
    permission: null,
    summary: 'Update a user (the user or staff)',
    handler: async (ctx, input) => toUserRest(await updateUser(ctx, input.params.user, input.body, 'replace')),
  }),
  route({
    method: 'PATCH',
    path: '/users/:user/',
    permission: null,
    summary: 'Partially update a user (the user or staff)',
    handler: async (ctx, input) => toUserRest(await updateUser(ctx, input.params.user, input.body, 'patch')),
  }),
  route({
    method: 'DELETE',
    path: '/users/:user/',
    permission: null,
    summary: 'Soft-delete a user',
    handler: (ctx, input) => deleteUser(ctx, input.params.user),
  }),
  route({
    method: 'POST',
    path: '/users/:user/restore/',
    permission: null,
    status: 200,
    summary: 'Restore a soft-deleted user (staff)',
    handler: async (ctx, input) => toUserRest(await restoreUser(ctx, input.params.user)),
  }),
  route({
    method: 'GET',
    path: '/users/:user/profile/',
    permission: null,
    summary: "A user's profile",
    handler: async (ctx, input) => toProfileRest(await getProfile(ctx, input.params.user)),
  }),
  route({
    method: 'PATCH',
    path: '/users/:user/profile/',
    permission: null,
    summary: "Update a user's profile",
    handler: async (ctx, input) => toProfileRest(await updateProfile(ctx, input.params.user, input.body)),
  }),

  route({
    method: 'GET',
    path: '/groups/',
    permission: null,
    summary: 'Groups the caller can see',
    handler: async (ctx, input) => {
      const { page, count, items } = await listGroups(
        ctx,
        listInputFromQuery(input.query, { scope: 'string', organization_slug: 'string' }),
      );
      return toPage(ctx.baseUrl + input.url, page, count, items.map(toGroupRest));
    },
  }),
  route({
    method: 'POST',
    path: '/groups/',
    permission: 'manage_organization',
    summary: 'Create a group',
    handler: (ctx, input) => createGroup(ctx, input.body).then(toGroupRest),
  }),
  route({
    method: 'GET',
    path: '/groups/:group/',
    permission: 'view_organization',
    summary: 'One group',
    handler: (ctx, input) => getGroup(ctx, input.params.group).then(toGroupRest),
  }),
  route({
    method: 'PUT',
    path: '/groups/:group/',
    permission: 'manage_organization',
    summary: 'Update a group',
    handler: (ctx, input) => updateGroup(ctx, input.params.group, input.body, 'replace').then(toGroupRest),
  }),
  route({
    method: 'PATCH',
    path: '/groups/:group/',
    permission: 'manage_organization',
    summary: 'Partially update a group',
    handler: (ctx, input) => updateGroup(ctx, input.params.group, input.body, 'patch').then(toGroupRest),
  }),
  route({
    method: 'DELETE',
    path: '/groups/:group/',
    permission: 'manage_organization',
    summary: 'Delete a group',
    handler: (ctx, input) => deleteGroup(ctx, input.params.group),
  }),
  route({
    method: 'POST',
    path: '/groups/:group/users/',
    permission: 'manage_organization',
    summary: 'Add a user to a group',
    handler: (ctx, input) => addGroupMember(ctx, input.params.group, input.body).then(toGroupRest),
  }),
  route({
    method: 'DELETE',
    path: '/groups/:group/users/:user/',
    permission: 'manage_organization',
    summary: 'Remove a user from a group',
    handler: async (ctx, input) => void (await removeGroupMember(ctx, input.params.group, input.params.user)),
  }),

  route({
    method: 'GET',
    path: '/permissions/',
    permission: null,
    summary: 'The permission catalogue',
    handler: async (ctx, input) => {
      const { page, count, items } = await listPermissions(ctx, listInputFromQuery(input.query, { resource: 'string' }));
      return toPage(ctx.baseUrl + input.url, page, count, items);
    },
  }),
];
