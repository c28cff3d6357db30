// The auth module: JWT pairs with rotation, browser sessions with CSRF, API-key and social
// sign-in (DECISIONS §3). REST routes only; the edge (gateway/auth/authenticate.ts) calls its
// services to authenticate every request.
import type { ModuleManifest } from '../core/module.js';
import { authRoutes } from './auth.routes.js';
import type { Platform } from '../core/platform.js';
import { startPeriodic, type Periodic, type PeriodicStatus } from '../core/periodic.js';
import { tokenRepository } from './token.repository.js';

type PurgeResult = Awaited<ReturnType<typeof tokenRepository.purgeExpired>>;
const purges = new WeakMap<Platform, Periodic<PurgeResult>>();

/** The expired-credentials purge of a platform: passes completed and the last one's counts. */
export const credentialPurge = (platform: Platform): PeriodicStatus<PurgeResult> =>
  purges.get(platform)?.status() ?? { scheduled: false, passes: 0, last: null };

export const authModule: ModuleManifest = {
  name: 'auth',
  routes: authRoutes,
  register(platform) {
    // A credential change (tenancy) revokes the user's refresh tokens and sessions in its own
    // transaction; the token version it moved on retires the access tokens.
    platform.hooks.on('userTokensRevoked', (tx, user) =>
      tokenRepository.revokeRefreshAndSessions((sql, params) => tx.$executeRawUnsafe(sql, ...params), user.id),
    );
    // Expired credentials are deleted at start and every AUTH_PURGE_INTERVAL_MS (an hour).
    purges.set(
      platform,
      startPeriodic(platform, {
        what: 'expired credentials purge',
        intervalMs: platform.config.authPurgeIntervalMs,
        pass: async () => {
          const r = await tokenRepository.purgeExpired(platform.pool);
          if (r.refreshTokens + r.sessions + r.revokedAccess > 0)
            platform.log.info({ component: 'auth-purge', ...r }, 'expired credentials deleted');
          return r;
        },
      }),
    );
  },
};
