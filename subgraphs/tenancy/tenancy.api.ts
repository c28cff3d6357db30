// What other modules may use of the tenancy module: apps and sites resolved for the caller,
// the object-level access checks, users for the auth module. Other modules import this file
// only, never tenancy's internals (scripts/check-imports.mjs enforces it).
export { accessPredicate, allowed, can } from './access.service.js';
export { apiKeyFormat } from './api-key-format.js';
export { findSiteApp, requireApp, resolveApp, type App, type AppRow } from './app.service.js';
export { burnPasswordCheck, verifyPassword } from './password.js';
export { quoteSchema } from './site-schema.js';
export { requireSite } from './site.service.js';
export { userRepository, type User } from './user.repository.js';
export { toUserAccount } from './user-account.js';
export { toUserRest } from './users-views.js';
export { siteRepository } from './site.repository.js';
