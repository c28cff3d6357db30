// Who is calling and for which site: the identity half of the request context, with no
// dependencies, so that caches and tokens can use it without the platform's types.

/**
 * The signed-in user's own fields as authentication loaded them: at most the auth cache's
 * bound old (docs/auth.md), fresh in the process that changed them. Never a password hash.
 */
export interface PrincipalUserRow {
  slug: string;
  email: string;
  firstName: string;
  lastName: string;
  createdAt: Date;
  lastLogin: Date | null;
}

export interface UserPrincipal {
  kind: 'user';
  via: 'jwt' | 'session';
  userId: number;
  uuid: string;
  username: string;
  isStaff: boolean;
  isSuperuser: boolean;
  /** JWT id of the access token, when authenticated by JWT. */
  jti?: string;
  row?: PrincipalUserRow;
}

export interface ApiKeyPrincipal {
  kind: 'api_key';
  keyId: number;
  appId: number;
  siteId: number;
}

export interface AnonymousPrincipal {
  kind: 'anonymous';
}

export type Principal = UserPrincipal | ApiKeyPrincipal | AnonymousPrincipal;

export interface SiteRef {
  id: number;
  uuid: string;
  slug: string;
  name: string;
  schemaName: string;
  organizationId: number;
  environment: string;
}

export const ANONYMOUS: AnonymousPrincipal = Object.freeze({ kind: 'anonymous' });

export const isUser = (p: Principal): p is UserPrincipal => p.kind === 'user';
