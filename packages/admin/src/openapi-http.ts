import type { JsonSchema } from '@fw/http';

/** One OpenAPI operation, as plain data. */
export type Operation = Record<string, unknown>;

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

/** The error statuses, as reusable responses. */
export function errorResponses(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(ERROR_TEXT).map(([status, text]) => [
      `Error${status}`,
      { description: text, content: { 'application/json': { schema: { $ref: '#/components/schemas/FwError' } } } },
    ]),
  );
}

/** References to the error responses of these statuses. */
export function errors(...statuses: number[]): Record<string, unknown> {
  return Object.fromEntries([...new Set([...statuses, 500, 503])].sort((a, b) => a - b).map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }]));
}

/** A JSON answer. */
export function jsonAnswer(description: string, schema: JsonSchema, headers?: Record<string, unknown>): Record<string, unknown> {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } };
}

/** A required JSON body. */
export function jsonBody(schema: JsonSchema, required = true): Record<string, unknown> {
  return { required, content: { 'application/json': { schema } } };
}

/** A path parameter. */
export function pathParam(name: string, schema: JsonSchema, description?: string): Record<string, unknown> {
  return { name, in: 'path', required: true, schema, ...(description ? { description } : {}) };
}

/** A query parameter. */
export function queryParam(name: string, schema: JsonSchema, description: string): Record<string, unknown> {
  return { name, in: 'query', required: false, schema, description };
}

/** The token in a header (`token`, or `Authorization: Bearer`). */
export const TOKEN_SECURITY = [{ fwToken: [] }, { fwBearer: [] }];
/** Download links may carry the token as `?_token=` instead. */
export const DOWNLOAD_SECURITY = [...TOKEN_SECURITY, { fwQueryToken: [] }];
/** Open routes. */
export const NO_SECURITY: unknown[] = [];

/** The security schemes of the description. */
export function securitySchemes(): Record<string, unknown> {
  return {
    fwToken: { type: 'apiKey', in: 'header', name: 'token', description: 'The token from POST /login or POST /open-api/token' },
    fwBearer: { type: 'http', scheme: 'bearer', description: 'The same token as `Authorization: Bearer <token>`' },
    fwQueryToken: { type: 'apiKey', in: 'query', name: '_token', description: 'The token in the query string; accepted on export and print downloads only' },
  };
}

const ok = { type: 'object', properties: { ok: { const: true } }, required: ['ok'], additionalProperties: false };
const loginRefused = {
  type: 'object',
  properties: { pass: { const: false }, reason: { type: 'string' }, useVerifyCode: { type: 'boolean' }, retryAfter: { type: 'integer', minimum: 0 } },
  required: ['pass', 'reason', 'useVerifyCode'],
  additionalProperties: false,
};
const tokenAnswer = {
  type: 'object',
  properties: { token: { type: 'string' }, expire: { type: 'string', format: 'date-time' } },
  required: ['token', 'expire'],
  additionalProperties: false,
};

/** The routes of `fwLogin`. */
export function loginPaths(): Record<string, Record<string, Operation>> {
  const logout: Operation = {
    tags: ['login'],
    summary: 'Log out: the token is revoked at once',
    security: TOKEN_SECURITY,
    responses: { 200: jsonAnswer('Logged out', ok), ...errors(401) },
  };
  return {
    '/login': {
      post: {
        operationId: 'login',
        tags: ['login'],
        summary: 'Sign in with an account and password',
        description:
          'With `fw-app.pwdTransferEncrypt` on, `pwd` is the password URL-encoded, then Base64-encoded three times. A refused login is 401 with `pass: false` (429 during a lockout).',
        security: NO_SECURITY,
        requestBody: jsonBody({
          type: 'object',
          properties: { account: { type: 'string', maxLength: 128 }, pwd: { type: 'string' }, verifyCode: { type: 'string' }, verifyCodeMark: { type: 'string' } },
          required: ['account', 'pwd'],
        }),
        responses: {
          200: jsonAnswer('Signed in', {
            type: 'object',
            properties: {
              pass: { const: true },
              token: { type: 'string' },
              expire: { type: 'string', format: 'date-time' },
              resetPwd: { type: 'boolean' },
              useVerifyCode: { const: false },
            },
            required: ['pass', 'token', 'expire', 'resetPwd', 'useVerifyCode'],
            additionalProperties: false,
          }),
          401: jsonAnswer('Refused: wrong credentials, a locked account, a wrong or missing captcha', loginRefused),
          429: jsonAnswer('Locked out for now; Retry-After says how long', loginRefused, { 'Retry-After': { schema: { type: 'integer' } } }),
          ...errors(400, 413, 415),
        },
      },
    },
    '/logout': { get: { ...logout, operationId: 'logout' }, post: { ...logout, operationId: 'logoutPost' } },
    '/change-pwd': {
      post: {
        operationId: 'changePassword',
        tags: ['login'],
        summary: "Change the caller's own password; every other token of the user is revoked",
        security: TOKEN_SECURITY,
        requestBody: jsonBody({
          type: 'object',
          properties: { pwd: { type: 'string' }, newPwd: { type: 'string' }, newPwd2: { type: 'string' } },
          required: ['pwd', 'newPwd', 'newPwd2'],
        }),
        responses: { 200: jsonAnswer('Changed', ok), ...errors(400, 401, 413, 415, 422, 429) },
      },
    },
    '/code-img': {
      get: {
        operationId: 'captchaImage',
        tags: ['login'],
        summary: 'A captcha image; the header X-Verify-Code-Mark names it',
        security: NO_SECURITY,
        parameters: [queryParam('mark', { type: 'string', pattern: '^[A-Za-z0-9_-]{8,64}$' }, 'A mark of your own; one is made when absent')],
        responses: {
          200: { description: 'A PNG image', headers: { 'X-Verify-Code-Mark': { schema: { type: 'string' } } }, content: { 'image/png': {} } },
          ...errors(400, 429),
        },
      },
    },
    '/userinfo': {
      get: {
        operationId: 'userInfo',
        tags: ['login'],
        summary: 'The signed-in user and their roles',
        security: TOKEN_SECURITY,
        responses: {
          200: jsonAnswer('The user', {
            type: 'object',
            properties: {
              id: { type: 'integer' },
              account: { type: 'string' },
              name: { type: ['string', 'null'] },
              isAdmin: { type: 'boolean' },
              resetPwd: { type: 'boolean' },
              roles: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { id: { type: 'integer' }, code: { type: 'string' }, name: { type: 'string' } },
                  required: ['id', 'code', 'name'],
                  additionalProperties: false,
                },
              },
            },
            required: ['id', 'account', 'name', 'isAdmin', 'resetPwd', 'roles'],
            additionalProperties: false,
          }),
          ...errors(401),
        },
      },
    },
    '/menu': {
      get: {
        operationId: 'menu',
        tags: ['login'],
        summary: "The menus the signed-in user's roles grant",
        security: TOKEN_SECURITY,
        responses: {
          200: jsonAnswer('The menus', {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'integer' },
                code: { type: ['string', 'null'] },
                name: { type: 'string' },
                titles: { $ref: '#/components/schemas/FwTitles' },
                type: { type: 'string' },
                value: { type: ['string', 'null'] },
                icon: { type: ['string', 'null'] },
                parentId: { type: ['integer', 'null'] },
                status: { type: 'string' },
              },
              required: ['id', 'code', 'name', 'type', 'value', 'icon', 'parentId', 'status'],
              additionalProperties: false,
            },
          }),
          ...errors(401),
        },
      },
    },
    '/login-settings': {
      get: {
        operationId: 'loginSettings',
        tags: ['login'],
        summary: 'What a sign-in page needs before anyone signed in',
        security: NO_SECURITY,
        responses: {
          200: jsonAnswer('The settings', {
            type: 'object',
            properties: {
              title: { type: 'string' },
              pwdTransferEncrypt: { type: 'boolean' },
              verifyCodeCount: { type: 'integer' },
              providers: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { id: { type: 'string' }, name: { type: 'string' }, url: { type: 'string' } },
                  required: ['id', 'name', 'url'],
                  additionalProperties: false,
                },
              },
              passwordPolicy: {
                type: 'object',
                description: 'The password policy every password change is held to',
                properties: {
                  minLength: { type: 'integer' },
                  maxLength: { type: 'integer' },
                  rules: { type: 'array', items: { type: 'string', enum: ['minLength', 'maxLength', 'notAccount', 'notCommon'] } },
                },
                required: ['minLength', 'maxLength', 'rules'],
                additionalProperties: false,
              },
            },
            required: ['title', 'pwdTransferEncrypt', 'verifyCodeCount', 'providers', 'passwordPolicy'],
            additionalProperties: false,
          }),
          ...errors(),
        },
      },
    },
    '/open-api/token': {
      post: {
        operationId: 'openApiToken',
        tags: ['login'],
        summary: 'Exchange an open-API key for a token of its user',
        security: NO_SECURITY,
        requestBody: jsonBody({
          type: 'object',
          properties: { appId: { type: 'string', minLength: 1, maxLength: 64 }, secret: { type: 'string', minLength: 1, maxLength: 512 } },
          required: ['appId', 'secret'],
        }),
        responses: { 200: jsonAnswer('A token', tokenAnswer), ...errors(400, 401, 413, 415, 429) },
      },
    },
  };
}

/** The AI tools' MCP endpoint (`fwMcp`). */
export function mcpPaths(): Record<string, Record<string, Operation>> {
  const message = { type: 'object', description: 'A JSON-RPC 2.0 message of the Model Context Protocol', properties: { jsonrpc: { const: '2.0' } }, required: ['jsonrpc'] };
  return {
    '/ai/mcp': {
      post: {
        operationId: 'mcp',
        tags: ['ai'],
        summary: 'The AI toolbox over MCP (streamable HTTP, stateless, JSON answers)',
        description: 'Send `Accept: application/json, text/event-stream`. Tool failures are MCP tool errors carrying the Fw error in `structuredContent`.',
        security: TOKEN_SECURITY,
        requestBody: jsonBody({ anyOf: [message, { type: 'array', items: message }] }),
        responses: {
          200: jsonAnswer('The JSON-RPC answer', { anyOf: [message, { type: 'array', items: message }] }),
          202: { description: 'A notification or answer was accepted; no body' },
          400: jsonAnswer('A body that is not JSON (the Fw error body), or not a JSON-RPC message (a JSON-RPC error)', {
            anyOf: [{ $ref: '#/components/schemas/FwError' }, message],
          }),
          406: jsonAnswer('The Accept header lacks application/json or text/event-stream', message),
          ...errors(401, 413, 415),
        },
      },
    },
  };
}

/** The description's own route. */
export function openApiPaths(mode: 'open' | 'token'): Record<string, Record<string, Operation>> {
  return {
    '/openapi.json': {
      get: {
        operationId: 'openApi',
        tags: ['openapi'],
        summary: 'This description (OpenAPI 3.1)',
        security: mode === 'open' ? NO_SECURITY : TOKEN_SECURITY,
        responses: { 200: jsonAnswer('The description', { type: 'object', required: ['openapi', 'info', 'paths'] }), ...errors(...(mode === 'open' ? [] : [401])) },
      },
    },
  };
}
