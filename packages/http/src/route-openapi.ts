// The OpenAPI 3.1 side of route contracts: the paths of a set of declared routes, and the pieces
// every Fw description shares (error answers, security schemes).
import type { ModelDefinition } from '@fw/core';
import { forModel, type AnswerContract, type JsonSchema, type ParamContract, type RouteContract, type RouteSecurity } from './route-contract.js';

/** One OpenAPI operation, as plain data. */
export type OpenApiOperation = Record<string, unknown>;
/** OpenAPI paths: path → method → operation. */
export type OpenApiPaths = Record<string, Record<string, OpenApiOperation>>;

/** What each error status means on Fw routes; every one answers the Fw error body. */
const ERROR_TEXT: Record<number, string> = {
  400: 'The request is malformed (BAD_REQUEST, INVALID_JSON, BAD_QUERY, BAD_ID, UNKNOWN_FIELD, READONLY_FIELD, INVALID_VALUE, …)',
  401: 'No token, or a refused one (UNAUTHENTICATED, TOKEN_EXPIRED, ACCOUNT_DISABLED)',
  403: 'Not permitted (POWER_DENIED with `model` and `flag`, GRANT_DENIED, CELL_EDIT_DISABLED, FIELD_CELL_EDIT_DISABLED)',
  404: 'No such row, or one the caller may not see (ROW_NOT_FOUND); for files, anything not served (NOT_FOUND); SESSION_NOT_FOUND',
  409: 'Conflicts with stored data (CONFLICT: a unique key taken, a row still referenced; STALE_ROW with `current` and `version`)',
  413: 'The body is too large (PAYLOAD_TOO_LARGE, TOO_MANY_ROWS, UPLOAD_QUOTA_BYTES)',
  415: 'The body has the wrong Content-Type (UNSUPPORTED_MEDIA_TYPE)',
  422: 'Values fail validation (VALIDATION_FAILED, IMPORT_FAILED, WRONG_PASSWORD, …); `details` lists every failure',
  429: 'Too many attempts (TOO_MANY_ATTEMPTS: failed logins or captchas, with Retry-After; an upload past the user’s quota of unsaved files, UPLOAD_QUOTA_FILES)',
  500: 'An unexpected server fault (INTERNAL)',
  501: 'The token store cannot list sessions (SESSIONS_NOT_SUPPORTED)',
  503: 'A database or Redis Fw depends on is unreachable or did not answer in time (UNAVAILABLE, LOGIN_UNAVAILABLE), or this instance is busy (OVERLOADED); with Retry-After',
};

/** The statuses that have a shared error answer (`#/components/responses/Error<status>`). */
export const ERROR_STATUSES: readonly number[] = Object.keys(ERROR_TEXT).map(Number);

/** The error statuses, as reusable responses. */
export function errorResponses(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(ERROR_TEXT).map(([status, text]) => [
      `Error${status}`,
      { description: text, content: { 'application/json': { schema: { $ref: '#/components/schemas/FwError' } } } },
    ]),
  );
}

/** References to the error responses of these statuses (500 and 503 always among them). */
export function errors(...statuses: number[]): Record<string, unknown> {
  return Object.fromEntries([...new Set([...statuses, 500, 503])].sort((a, b) => a - b).map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }]));
}

/** The token in a header (`token`, or `Authorization: Bearer`). */
export const TOKEN_SECURITY = [{ fwToken: [] }, { fwBearer: [] }];
/** Download links may carry the token as `?_token=` instead. */
export const DOWNLOAD_SECURITY = [...TOKEN_SECURITY, { fwQueryToken: [] }];
/** Open routes. */
export const NO_SECURITY: unknown[] = [];

const SECURITY: Record<RouteSecurity, unknown[]> = { token: TOKEN_SECURITY, download: DOWNLOAD_SECURITY, open: NO_SECURITY };

/** The security schemes of the description. */
export function securitySchemes(): Record<string, unknown> {
  return {
    fwToken: { type: 'apiKey', in: 'header', name: 'token', description: 'The token from POST /login or POST /open-api/token' },
    fwBearer: { type: 'http', scheme: 'bearer', description: 'The same token as `Authorization: Bearer <token>`' },
    fwQueryToken: { type: 'apiKey', in: 'query', name: '_token', description: 'The token in the query string; accepted on export and print downloads only' },
  };
}

/** A `$ref` to a component schema. */
export function schemaRef(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

function parameter(param: ParamContract, model: ModelDefinition | undefined): Record<string, unknown> {
  return {
    name: param.name,
    in: param.in,
    required: param.required ?? param.in === 'path',
    schema: forModel(param.schema, model),
    ...(param.description ? { description: param.description } : {}),
  };
}

function answer(spec: AnswerContract, model: ModelDefinition | undefined): Record<string, unknown> {
  const content =
    spec.json !== undefined
      ? { 'application/json': { schema: forModel(spec.json, model) } }
      : spec.content
        ? Object.fromEntries(Object.entries(spec.content).map(([type, schema]) => [type, Object.keys(schema).length > 0 ? { schema } : {}]))
        : undefined;
  return { description: spec.description, ...(spec.headers ? { headers: spec.headers } : {}), ...(content ? { content } : {}) };
}

function operation(route: RouteContract, model: ModelDefinition | undefined): OpenApiOperation {
  const tags = route.tags ?? (model ? [model.name] : undefined);
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.answers)) responses[status] = answer(spec, model);
  for (const [status, ref] of Object.entries(errors(...route.errors))) if (!(status in responses)) responses[status] = ref;
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
  const params = (route.params ?? []).map((p) => parameter(p, model));
  const op: OpenApiOperation = {
    operationId: model ? `${route.operationId}${model.name}` : route.operationId,
    ...(tags ? { tags } : {}),
    summary: forModel(route.summary, model),
    ...(route.description ? { description: route.description } : {}),
    security: SECURITY[route.security],
    ...(params.length > 0 ? { parameters: params } : {}),
  };
  if (route.body) op.requestBody = { required: route.body.required, content: { 'application/json': { schema: forModel(route.body.shape.schema, model) } } };
  else if (route.content) {
    op.requestBody = {
      required: route.content.required,
      content: Object.fromEntries(Object.entries(route.content.types).map(([type, schema]) => [type, Object.keys(schema).length > 0 ? { schema } : {}])),
    };
  }
  op.responses = sorted;
  return op;
}

/**
 * The OpenAPI paths of `routes`: a plain route once, a per-model route once for each of `models`
 * its `describedFor` accepts, with `{fw}` replaced by the model's name. Two routes on one path
 * and method are a mistake in the declarations and throw.
 */
export function describeRoutes(routes: readonly RouteContract[], models: readonly ModelDefinition[] = []): OpenApiPaths {
  const paths: OpenApiPaths = {};
  const put = (path: string, method: string, op: OpenApiOperation) => {
    const at = (paths[path] ??= {});
    if (at[method]) throw new Error(`two routes declare ${method.toUpperCase()} ${path}`);
    at[method] = op;
  };
  for (const route of routes) {
    if (!route.perModel) {
      put(route.path, route.method, operation(route, undefined));
      continue;
    }
    for (const model of models) {
      if (!route.perModel.describedFor(model)) continue;
      put(route.path.replace('{fw}', model.name), route.method, operation(route, model));
    }
  }
  return paths;
}
