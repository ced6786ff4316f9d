export { FwStartError, fwAdmin } from './fw-admin.js';
export type { FwAdmin, FwAdminOptions } from './fw-admin.js';
export { checkFirstAdmin, ensureFirstAdmin, hasAdministrator } from './first-admin.js';
export type { FwFirstAdmin } from './first-admin.js';
export { XLSX_TYPE, openApiDocument } from './openapi.js';
export type { OpenApiDocument, OpenApiDocumentOptions } from './openapi.js';
export { fwOpenApi, openApiRoutes } from './openapi-route.js';
export type { FwOpenApiOptions, OpenApiRoute, OpenApiRouteServices } from './openapi-route.js';
