// The HTTP helpers moved to @fw/http, their one home; this module keeps the old import path working.
export { fwErrorHandler, fwRoute, renderError, readJsonBody, readTextBody, setFwApiHeaders, toFwError, isJsonObject } from '@fw/http';
export type { FwErrorHandlerOptions, ReadJsonOptions } from '@fw/http';
