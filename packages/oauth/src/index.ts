export { fwOAuth, OAUTH_FAILURES } from './fw-oauth.js';
export type { FwOAuthMiddleware, FwOAuthOptions } from './fw-oauth.js';
export { DEFAULT_API_PREFIXES, fwHostGuard, isOpenPath, STATIC_EXTENSIONS } from './guard.js';
export type { FwHostGuardOptions } from './guard.js';
export { resolveProviders, readProvidersFile } from './providers.js';
export type { OAuthProvider, OAuthProviderInput } from './providers.js';
export { KnexSessionStore, MemorySessionStore, RedisSessionStore } from './session-store.js';
export type { FwSessionStore } from './session-store.js';
