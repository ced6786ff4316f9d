// The sign-in routes of `fwLogin`, each contract beside its handler (issue 22 §5): password
// sign-in, logout, password change, the captcha image and the open-API token exchange. Bodies are
// parsed at the edge by their shapes; the flows (./flows) do the work on plain, typed input.
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { FwError, normalizeAccount, type FwErrorDetail } from '@fw/core';
import { isJsonObject, shape, type FwRoute, type JsonSchema } from '@fw/http';
import type { FwRequestState } from './auth.js';
import { loginError } from './error-codes.js';
import { changePassword } from './flows/change-password.js';
import { TOO_MANY, type FlowRequest } from './flows/flow-request.js';
import { exchangeOpenApiKey, type OpenApiTokenInput } from './flows/open-api-token.js';
import { passwordSignIn, type PasswordSignInInput } from './flows/password-sign-in.js';
import type { ResolvedOptions } from './login-options.js';

/** The answer of `POST /login`. */
export type LoginResponse =
  { pass: true; token: string; expire: string; resetPwd: boolean; useVerifyCode: false } | { pass: false; reason: string; useVerifyCode: boolean; retryAfter?: number };

const ACCOUNT_MAX = 128;
// Generated app ids and secrets never hold these; PostgreSQL cannot even compare text with a NUL.
const CONTROL = /\p{Cc}/u;
const PWD_MAX = 4096;

/**
 * A route of `fwLogin` itself. The caller of a token route is the signed-in state (401 without
 * one); `passwordChange: 'allowed'` marks a route a user who must change the password may still
 * call (userinfo, change-pwd, logout), every other one refuses such a user with 403
 * `PASSWORD_CHANGE_REQUIRED`.
 */
export interface LoginRoute<Body = unknown> extends FwRoute<ResolvedOptions, Body, undefined, FwRequestState> {
  passwordChange?: 'allowed';
}

/** Declares a route of `fwLogin` (an identity function that gives the declaration its types). */
export function loginRoute<Body = undefined>(route: LoginRoute<Body>): LoginRoute<Body> {
  return route;
}

function badField(path: string, message: string): FwErrorDetail {
  return { path, type: 'typeError', message };
}

/** The body of `POST /login` as its handler receives it: the checked input, and the body as sent (for the login hook). */
export interface LoginBody {
  input: PasswordSignInInput;
  /** The parsed JSON body, extra parameters included, for `currentLoginRequest().body`. */
  sent: Record<string, unknown>;
}

/** `POST /login`'s body: `{ account, pwd, verifyCode?, verifyCodeMark? }`; every malformed field is one detail of a 400. */
export const LOGIN_BODY = shape<LoginBody>(
  {
    type: 'object',
    properties: { account: { type: 'string', maxLength: ACCOUNT_MAX }, pwd: { type: 'string' }, verifyCode: { type: 'string' }, verifyCodeMark: { type: 'string' } },
    required: ['account', 'pwd'],
  },
  (body) => {
    if (!isJsonObject(body)) throw new FwError('BAD_REQUEST', 'The body must be a JSON object');
    const details: FwErrorDetail[] = [];
    const { account, pwd, verifyCode, verifyCodeMark } = body;
    if (typeof account !== 'string' || account.length === 0 || account.length > ACCOUNT_MAX) {
      details.push(badField('account', `account must be a string of 1 to ${ACCOUNT_MAX} characters`));
    }
    if (typeof pwd !== 'string' || pwd.length === 0 || pwd.length > PWD_MAX) details.push(badField('pwd', `pwd must be a string of 1 to ${PWD_MAX} characters`));
    for (const [name, value] of [
      ['verifyCode', verifyCode],
      ['verifyCodeMark', verifyCodeMark],
    ] as const) {
      if (value !== undefined && value !== null && (typeof value !== 'string' || value.length > 64))
        details.push(badField(name, `${name} must be a string of at most 64 characters`));
    }
    if (details.length > 0) throw new FwError('BAD_REQUEST', 'The login body is malformed', { details });
    const input: PasswordSignInInput = {
      // `é` typed as one code point or as e + accent is one account (stored accounts are NFC).
      account: normalizeAccount(account as string),
      pwd: pwd as string,
      ...(typeof verifyCode === 'string' ? { verifyCode } : {}),
      ...(typeof verifyCodeMark === 'string' ? { verifyCodeMark } : {}),
    };
    return { input, sent: body };
  },
);

/** `POST /change-pwd`'s body: the current password and the new one twice, each 1 to 4096 characters. */
export const CHANGE_PASSWORD_BODY = shape<{ pwd: string; newPwd: string; newPwd2: string }>(
  {
    type: 'object',
    properties: { pwd: { type: 'string' }, newPwd: { type: 'string' }, newPwd2: { type: 'string' } },
    required: ['pwd', 'newPwd', 'newPwd2'],
  },
  (body) => {
    if (!isJsonObject(body)) throw new FwError('BAD_REQUEST', 'The body must be a JSON object');
    const details: FwErrorDetail[] = [];
    for (const name of ['pwd', 'newPwd', 'newPwd2'] as const) {
      const value = body[name];
      if (typeof value !== 'string' || value.length === 0 || value.length > PWD_MAX) details.push(badField(name, `${name} must be a string of 1 to ${PWD_MAX} characters`));
    }
    if (details.length > 0) throw new FwError('BAD_REQUEST', 'The change-password body is malformed', { details });
    return { pwd: body.pwd as string, newPwd: body.newPwd as string, newPwd2: body.newPwd2 as string };
  },
);

/** `POST /open-api/token`'s body: an app id (1 to 64 characters) and a secret (1 to 512), neither with control characters. */
export const OPEN_API_TOKEN_BODY = shape<OpenApiTokenInput>(
  {
    type: 'object',
    properties: { appId: { type: 'string', minLength: 1, maxLength: 64 }, secret: { type: 'string', minLength: 1, maxLength: 512 } },
    required: ['appId', 'secret'],
  },
  (body) => {
    if (!isJsonObject(body)) throw new FwError('BAD_REQUEST', 'The body must be { appId, secret }');
    const { appId, secret } = body;
    const details: FwErrorDetail[] = [];
    if (typeof appId !== 'string' || appId.length === 0 || appId.length > 64) details.push(badField('appId', 'appId must be a string of 1 to 64 characters'));
    else if (CONTROL.test(appId)) details.push(badField('appId', 'appId must not contain control characters'));
    if (typeof secret !== 'string' || secret.length === 0 || secret.length > 512) details.push(badField('secret', 'secret must be a string of 1 to 512 characters'));
    else if (CONTROL.test(secret)) details.push(badField('secret', 'secret must not contain control characters'));
    if (details.length > 0) throw new FwError('BAD_REQUEST', 'The body must be { appId, secret }', { details });
    return { appId: appId as string, secret: secret as string };
  },
);

function fail(ctx: Context, reason: string, captchaRequired: boolean, lockedForMs?: number): void {
  if (lockedForMs !== undefined) {
    const seconds = Math.max(1, Math.ceil(lockedForMs / 1000));
    ctx.status = 429;
    ctx.set('Retry-After', String(seconds));
    ctx.body = { pass: false, reason, useVerifyCode: captchaRequired, retryAfter: seconds } satisfies LoginResponse;
    return;
  }
  ctx.status = 401;
  ctx.body = { pass: false, reason, useVerifyCode: captchaRequired } satisfies LoginResponse;
}

/** The 429 of a locked-out open-API exchange or password change. */
function tooMany(lockedForMs: number): FwError {
  return new FwError('TOO_MANY_ATTEMPTS', TOO_MANY, { headers: { 'Retry-After': String(Math.ceil(lockedForMs / 1000)) } });
}

/** Hands an unexpected hook failure to `app.on('error')`; Koa's default listener refuses non-errors, so those are wrapped. */
function report(ctx: Context, error: unknown): void {
  ctx.app.emit('error', error instanceof Error ? error : new Error('A login hook threw a value that is not an Error', { cause: error }), ctx);
}

/** What every flow is told about a Koa request. */
function flowRequest(ctx: Context): FlowRequest {
  return { ip: ctx.ip, userAgent: ctx.get('user-agent') || null, report: (error) => report(ctx, error) };
}

const OK: JsonSchema = { type: 'object', properties: { ok: { const: true } }, required: ['ok'], additionalProperties: false };
const LOGIN_REFUSED: JsonSchema = {
  type: 'object',
  properties: { pass: { const: false }, reason: { type: 'string' }, useVerifyCode: { type: 'boolean' }, retryAfter: { type: 'integer', minimum: 0 } },
  required: ['pass', 'reason', 'useVerifyCode'],
  additionalProperties: false,
};
/** The tag of `fwLogin`'s own routes in the description. */
export const LOGIN_TAGS = ['login'];

/** `GET|POST /logout`: the token is revoked at once, and the login hook told. */
function logoutRoute(method: 'get' | 'post', operationId: string): LoginRoute {
  return loginRoute({
    method,
    path: '/logout',
    operationId,
    tags: LOGIN_TAGS,
    summary: 'Log out: the token is revoked at once',
    security: 'token',
    passwordChange: 'allowed',
    answers: { 200: { description: 'Logged out', json: OK } },
    errors: [401],
    async handle(_ctx, { deps, who }) {
      await deps.tokens.revoke(who.token);
      await deps.proxy.logout(who.token);
      return { ok: true };
    },
  });
}

/** The sign-in routes of `fwLogin`, each contract beside its handler. */
export const signInRoutes: readonly LoginRoute[] = [
  loginRoute<LoginBody>({
    method: 'post',
    path: '/login',
    operationId: 'login',
    tags: LOGIN_TAGS,
    summary: 'Sign in with an account and password',
    description:
      'With `fw-app.pwdTransferEncrypt` on, `pwd` is the password URL-encoded, then Base64-encoded three times. A refused login is 401 with `pass: false` (429 during a lockout).',
    security: 'open',
    body: { shape: LOGIN_BODY, required: true },
    answers: {
      200: {
        description: 'Signed in',
        json: {
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
        },
      },
      401: { description: 'Refused: wrong credentials, a locked account, a wrong or missing captcha', json: LOGIN_REFUSED },
      429: { description: 'Locked out for now; Retry-After says how long', json: LOGIN_REFUSED, headers: { 'Retry-After': { schema: { type: 'integer' } } } },
    },
    errors: [400, 413, 415],
    async handle(ctx, { deps, body }) {
      const loginRequest = { ip: ctx.ip, headers: ctx.headers, body: body.sent, query: ctx.query, ctx };
      const outcome = await passwordSignIn(deps, body.input, { ...flowRequest(ctx), loginRequest });
      if (!outcome.ok) return fail(ctx, outcome.reason, outcome.captcha, outcome.lockedForMs);
      ctx.status = 200;
      return {
        pass: true,
        token: outcome.token,
        expire: outcome.expire.toISOString(),
        resetPwd: outcome.resetPwd,
        useVerifyCode: false,
      } satisfies LoginResponse;
    },
  }),
  logoutRoute('get', 'logout'),
  logoutRoute('post', 'logoutPost'),
  loginRoute<{ pwd: string; newPwd: string; newPwd2: string }>({
    method: 'post',
    path: '/change-pwd',
    operationId: 'changePassword',
    tags: LOGIN_TAGS,
    summary: "Change the caller's own password; every other token of the user is revoked",
    security: 'token',
    passwordChange: 'allowed',
    body: { shape: CHANGE_PASSWORD_BODY, required: true },
    answers: { 200: { description: 'Changed', json: OK } },
    errors: [400, 401, 413, 415, 422, 429],
    async handle(ctx, { deps, who, body }) {
      const outcome = await changePassword(deps, { user: who.user, token: who.token, ...body }, flowRequest(ctx));
      if (!outcome.ok) throw outcome.code === 'TOO_MANY_ATTEMPTS' ? tooMany(outcome.lockedForMs) : loginError(outcome.code, outcome.reason, outcome.details);
      return { ok: true };
    },
  }),
  loginRoute({
    method: 'get',
    path: '/code-img',
    operationId: 'captchaImage',
    tags: LOGIN_TAGS,
    summary: 'A captcha image; the header X-Verify-Code-Mark names it',
    security: 'open',
    params: [
      { name: 'mark', in: 'query', required: false, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{8,64}$' }, description: 'A mark of your own; one is made when absent' },
    ],
    answers: { 200: { description: 'A PNG image', headers: { 'X-Verify-Code-Mark': { schema: { type: 'string' } } }, content: { 'image/png': {} } } },
    errors: [400, 429],
    async handle(ctx, { deps: o }) {
      const mark = typeof ctx.query.mark === 'string' && ctx.query.mark !== '' ? ctx.query.mark : undefined;
      if (Array.isArray(ctx.query.mark)) throw loginError('CAPTCHA_MARK_INVALID');
      if (mark !== undefined) o.captchas.checkMark(mark);
      // One counter per address and window: bounded writes, whatever the request rate.
      const key = `captcha-rate:${createHash('sha256').update(ctx.ip).digest('base64url').slice(0, 22)}`;
      if ((await o.ephemeral.increment(key, o.captchaRate.windowMs)) > o.captchaRate.max) {
        const left = (await o.ephemeral.ttl(key)) ?? o.captchaRate.windowMs;
        throw new FwError('TOO_MANY_ATTEMPTS', 'Too many captcha images from this address; try again later', {
          headers: { 'Retry-After': String(Math.max(1, Math.ceil(left / 1000))) },
        });
      }
      const captcha = await o.captchas.issue(mark);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Verify-Code-Mark', captcha.mark);
      ctx.type = 'image/png';
      return captcha.png;
    },
  }),
  /**
   * `POST /open-api/token` `{ appId, secret }`: exchanges an open-API key (see `store.openApis`)
   * for a token of the key's user, so a tool such as a desktop AI client needs one secret only.
   * Failed exchanges are counted like failed logins (per app id and IP), so the secret cannot be
   * guessed.
   */
  loginRoute<OpenApiTokenInput>({
    method: 'post',
    path: '/open-api/token',
    operationId: 'openApiToken',
    tags: LOGIN_TAGS,
    summary: 'Exchange an open-API key for a token of its user',
    security: 'open',
    body: { shape: OPEN_API_TOKEN_BODY, required: true },
    answers: {
      200: {
        description: 'A token',
        json: {
          type: 'object',
          properties: { token: { type: 'string' }, expire: { type: 'string', format: 'date-time' } },
          required: ['token', 'expire'],
          additionalProperties: false,
        },
      },
    },
    errors: [400, 401, 413, 415, 429],
    async handle(ctx, { deps, body }) {
      const outcome = await exchangeOpenApiKey(deps, body, flowRequest(ctx));
      if (!outcome.ok) throw outcome.lockedForMs !== undefined ? tooMany(outcome.lockedForMs) : new FwError('UNAUTHENTICATED', outcome.reason);
      return { token: outcome.token, expire: outcome.expire.toISOString() };
    },
  }),
];
