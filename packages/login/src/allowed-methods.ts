// Moved to @fw/http; this module keeps the old import path working.
export { allowedMethods, methodNotAllowed, routesWithAllowedMethods } from '@fw/http';
