// The user as REST and GraphQL show it, for tests that compare the two transports.

/** The GraphQL `User` fields that mirror the REST user view. */
export const GRAPHQL_USER_FIELDS = 'id slug username email firstName lastName isStaff isSuperuser isActive dateJoined lastLogin';

/** A REST user view (snake_case) in GraphQL's shape. */
export const restUserAsGraphql = (u: any) => ({
  id: u.uuid,
  slug: u.slug,
  username: u.username,
  email: u.email,
  firstName: u.first_name,
  lastName: u.last_name,
  isStaff: u.is_staff,
  isSuperuser: u.is_superuser,
  isActive: u.is_active,
  dateJoined: u.date_joined,
  lastLogin: u.last_login,
});
