export { fwUi, injectUiConfig, FW_UI_DIST_DIR } from './fw-ui.js';
export type { FwUiOptions, FwUiConfig } from './fw-ui.js';
