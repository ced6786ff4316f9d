export { fwWeb, findShadowingFiles, FW_WEB_PUBLIC_DIR } from './fw-web.js';
export type { FwWebOptions, ShadowingFile } from './fw-web.js';
