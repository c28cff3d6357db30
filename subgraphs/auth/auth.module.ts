// The auth module: JWT pairs with rotation, browser sessions with CSRF, API-key and social
// sign-in (DECISIONS §3). REST routes only; the edge (gateway/auth/authenticate.ts) calls its
// services to authenticate every request.
import type { ModuleManifest } from '../core/module.js';
import { authRoutes } from './auth.routes.js';

export const authModule: ModuleManifest = {
  name: 'auth',
  routes: authRoutes,
};
