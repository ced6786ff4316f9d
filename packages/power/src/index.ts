export { FUNCTION_MENU_SUFFIXES, menuCodeForFlag, modelMenuCode } from './menu-codes.js';
export { grantedPower, resolvePower } from './engine.js';
export type { PowerModel, PowerUser } from './engine.js';
export { PowerResolver } from './resolver.js';
export type { PowerResolverOptions, VersionedGrants } from './resolver.js';
export { aiGate, assertPower, isAiVisible } from './gates.js';
export { requirePower } from './koa-guard.js';
export type { RequirePowerOptions } from './koa-guard.js';
