export { fwErrorHandler, fwRoute, renderError, setFwApiHeaders, toFwError } from './errors.js';
export type { FwErrorHandlerOptions } from './errors.js';
export { readJsonBody, readTextBody, readRawBody, isJsonObject, JSON_BODY_LIMIT } from './body.js';
export type { ReadJsonOptions, ReadTextOptions } from './body.js';
export { readMultipart, MULTIPART_DEFAULTS, MultipartTooLargeError } from './multipart.js';
export type { MultipartBody, MultipartFile, MultipartOptions } from './multipart.js';
export { allowedMethods, methodNotAllowed, routesWithAllowedMethods } from './allowed-methods.js';
export { requireAuthState } from './auth-state.js';
export type { RequireAuthOptions } from './auth-state.js';
// toFwUser lives in @fw/core beside FwUser (issue 22 §4); still exported here so existing imports keep working.
export { toFwUser } from '@fw/core';
export type { StoredUserLike } from '@fw/core';
export { escapeHtml } from './escape-html.js';
export { composeMiddleware } from './compose.js';
export { fwLoadShed } from './load-shed.js';
export type { FwLoadShedMiddleware, FwLoadShedOptions, FwLoadShedStats } from './load-shed.js';
export { defineRoute, forModel, mountRoutes, routeMiddleware, routerPath, shape } from './route-contract.js';
export type { AnswerContract, FwRoute, HttpMethod, JsonSchema, MountOptions, ParamContract, PerModel, RouteContract, RouteInput, RouteSecurity, Shape } from './route-contract.js';
export {
  DOWNLOAD_SECURITY,
  ERROR_STATUSES,
  NO_SECURITY,
  TOKEN_SECURITY,
  describeRoutes,
  errorResponses,
  errors as errorAnswers,
  schemaRef,
  securitySchemes,
} from './route-openapi.js';
export type { OpenApiOperation, OpenApiPaths } from './route-openapi.js';
