/**
 * `@fw/token/conformance`: the mocha suites a store implementation runs to prove it keeps its
 * contract — {@link tokenStoreConformance} for a token store (and the token service on top of
 * it), {@link ephemeralStoreConformance} for an ephemeral store.
 */
export { tokenStoreConformance, type TokenStoreConformanceOptions } from './conformance-token.js';
export { ephemeralStoreConformance, type EphemeralStoreConformanceOptions } from './conformance-ephemeral.js';
