// The auth module: JWT pairs with rotation, browser sessions with CSRF, API-key and social
// sign-in (DECISIONS §3). REST routes only; the edge (gateway/auth/authenticate.ts) calls its
// services to authenticate every request.
import type { ModuleManifest } from '../core/module.js';
import { authRoutes } from './auth.routes.js';
import { tokenRepository } from './token.repository.js';

export const authModule: ModuleManifest = {
  name: 'auth',
  routes: authRoutes,
  register(platform) {
    // A credential change (tenancy) revokes the user's refresh tokens and sessions in its own
    // transaction; the token version it moved on retires the access tokens.
    platform.hooks.on('userTokensRevoked', (tx, user) =>
      tokenRepository.revokeRefreshAndSessions((sql, params) => tx.$executeRawUnsafe(sql, ...params), user.id),
    );
  },
};
