export { FwStartError, fwAdmin } from './fw-admin.js';
export type { FwAdmin, FwAdminOptions } from './fw-admin.js';
