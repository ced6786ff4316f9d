export { FwStartError, fwAdmin } from './fw-admin.js';
export type { FwAdmin, FwAdminOptions } from './fw-admin.js';
export { checkFirstAdmin, ensureFirstAdmin, hasAdministrator } from './first-admin.js';
export type { FwFirstAdmin } from './first-admin.js';
