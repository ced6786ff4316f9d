import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import { FwError, normalizeAccount, type FwErrorDetail } from '@fw/core';
import { fwRoute, isJsonObject, readJsonBody, requireAuthState, routesWithAllowedMethods } from '@fw/http';
import type { FwRequestState } from './auth.js';
import { loginError } from './error-codes.js';
import { changePassword } from './flows/change-password.js';
import { TOO_MANY, type FlowRequest } from './flows/flow-request.js';
import { exchangeOpenApiKey } from './flows/open-api-token.js';
import { passwordSignIn } from './flows/password-sign-in.js';
import { resolveOptions, type FwLoginOptions, type ResolvedOptions } from './login-options.js';
import { loginSettings } from './login-settings.js';
import { addActivityRoutes } from './activity-routes.js';
import { withFolders } from './menu-folders.js';
import { addSessionRoutes } from './session-routes.js';
import { addPrefRoutes } from './pref-routes.js';
import { needsPasswordReset } from './user-service.js';
import { modelMenuTitles } from './menu-titles.js';

export type { FwLoginOptions } from './login-options.js';

/** The answer of `POST /login`. */
export type LoginResponse =
  { pass: true; token: string; expire: string; resetPwd: boolean; useVerifyCode: false } | { pass: false; reason: string; useVerifyCode: boolean; retryAfter?: number };

const ACCOUNT_MAX = 128;
// Generated app ids and secrets never hold these; PostgreSQL cannot even compare text with a NUL.
const CONTROL = /\p{Cc}/u;
const PWD_MAX = 4096;

type Handler = (ctx: Context, o: ResolvedOptions) => Promise<void>;

/** Binds a handler to the resolved options; errors are answered in the Fw shape, for Fw's own routes only. */
function route(o: ResolvedOptions, handler: Handler): Middleware {
  return fwRoute((ctx) => handler(ctx, o));
}

/**
 * The request's signed-in state. `passwordChange`: the route is one a user who must change the
 * password may call (userinfo, change-pwd, logout); every other route refuses such a user with 403
 * `PASSWORD_CHANGE_REQUIRED`.
 */
async function requireAuth(ctx: Context, o: ResolvedOptions, passwordChange: 'allowed' | 'refused' = 'refused'): Promise<FwRequestState> {
  return requireAuthState(ctx, (c) => o.authenticator.authenticate(c), { allowPasswordChange: passwordChange === 'allowed' });
}

function badField(path: string, message: string): FwErrorDetail {
  return { path, type: 'typeError', message };
}

function readLoginBody(body: unknown): { account: string; pwd: string; verifyCode?: string; verifyCodeMark?: string } {
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
  return {
    // `é` typed as one code point or as e + accent is one account (stored accounts are NFC).
    account: normalizeAccount(account as string),
    pwd: pwd as string,
    ...(typeof verifyCode === 'string' ? { verifyCode } : {}),
    ...(typeof verifyCodeMark === 'string' ? { verifyCodeMark } : {}),
  };
}

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

async function login(ctx: Context, o: ResolvedOptions): Promise<void> {
  const body = await readJsonBody(ctx, { limit: o.bodyLimit });
  const input = readLoginBody(body);
  const loginRequest = { ip: ctx.ip, headers: ctx.headers, body: body as Record<string, unknown>, query: ctx.query, ctx };
  const outcome = await passwordSignIn(o, input, { ...flowRequest(ctx), loginRequest });
  if (!outcome.ok) return fail(ctx, outcome.reason, outcome.captcha, outcome.lockedForMs);
  ctx.status = 200;
  ctx.body = {
    pass: true,
    token: outcome.token,
    expire: outcome.expire.toISOString(),
    resetPwd: outcome.resetPwd,
    useVerifyCode: false,
  } satisfies LoginResponse;
}

/**
 * `POST /open-api/token` `{ appId, secret }`: exchanges an open-API key (see `store.openApis`) for
 * a token of the key's user, so a tool such as a desktop AI client needs one secret only. Failed
 * exchanges are counted like failed logins (per app id and IP), so the secret cannot be guessed.
 */
async function openApiToken(ctx: Context, o: ResolvedOptions): Promise<void> {
  const body = await readJsonBody(ctx, { limit: o.bodyLimit });
  if (!isJsonObject(body)) throw new FwError('BAD_REQUEST', 'The body must be { appId, secret }');
  const { appId, secret } = body;
  const details: FwErrorDetail[] = [];
  if (typeof appId !== 'string' || appId.length === 0 || appId.length > 64) details.push(badField('appId', 'appId must be a string of 1 to 64 characters'));
  else if (CONTROL.test(appId)) details.push(badField('appId', 'appId must not contain control characters'));
  if (typeof secret !== 'string' || secret.length === 0 || secret.length > 512) details.push(badField('secret', 'secret must be a string of 1 to 512 characters'));
  else if (CONTROL.test(secret)) details.push(badField('secret', 'secret must not contain control characters'));
  if (details.length > 0) throw new FwError('BAD_REQUEST', 'The body must be { appId, secret }', { details });
  const outcome = await exchangeOpenApiKey(o, { appId: appId as string, secret: secret as string }, flowRequest(ctx));
  if (!outcome.ok) throw outcome.lockedForMs !== undefined ? tooMany(outcome.lockedForMs) : new FwError('UNAUTHENTICATED', outcome.reason);
  ctx.body = { token: outcome.token, expire: outcome.expire.toISOString() };
}

async function logout(ctx: Context, o: ResolvedOptions): Promise<void> {
  const state = await requireAuth(ctx, o, 'allowed');
  await o.tokens.revoke(state.token);
  await o.proxy.logout(state.token);
  ctx.body = { ok: true };
}

async function changePwd(ctx: Context, o: ResolvedOptions): Promise<void> {
  const state = await requireAuth(ctx, o, 'allowed');
  const body = await readJsonBody(ctx, { limit: o.bodyLimit });
  if (!isJsonObject(body)) throw new FwError('BAD_REQUEST', 'The body must be a JSON object');
  const details: FwErrorDetail[] = [];
  for (const name of ['pwd', 'newPwd', 'newPwd2'] as const) {
    const value = body[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > PWD_MAX) details.push(badField(name, `${name} must be a string of 1 to ${PWD_MAX} characters`));
  }
  if (details.length > 0) throw new FwError('BAD_REQUEST', 'The change-password body is malformed', { details });
  const input = { user: state.user, token: state.token, pwd: body.pwd as string, newPwd: body.newPwd as string, newPwd2: body.newPwd2 as string };
  const outcome = await changePassword(o, input, flowRequest(ctx));
  if (!outcome.ok) throw outcome.code === 'TOO_MANY_ATTEMPTS' ? tooMany(outcome.lockedForMs) : loginError(outcome.code, outcome.reason, outcome.details);
  ctx.body = { ok: true };
}

async function codeImage(ctx: Context, o: ResolvedOptions): Promise<void> {
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
  ctx.body = captcha.png;
}

async function userInfo(ctx: Context, o: ResolvedOptions): Promise<void> {
  const { user } = await requireAuth(ctx, o, 'allowed');
  const stored = await o.store.users.findById(user.id);
  const roleIds = await o.store.users.roleIds(user.id);
  const roles = (await Promise.all(roleIds.map((id) => o.store.roles.findById(id))))
    .filter((role): role is NonNullable<typeof role> => Boolean(role))
    .map((role) => ({ id: role.id, code: role.code, name: role.name }));
  ctx.body = {
    id: user.id,
    account: user.account,
    name: user.name ?? null,
    isAdmin: user.isAdmin === true,
    resetPwd: needsPasswordReset(stored),
    roles,
  };
}

/** `GET /login-settings`, open: what the sign-in page shows and how it must send the password. Nothing secret. */
async function settings(ctx: Context, o: ResolvedOptions): Promise<void> {
  ctx.body = loginSettings(o.config, o.providers(), o.passwordPolicy);
}

async function menu(ctx: Context, o: ResolvedOptions): Promise<void> {
  const { user } = await requireAuth(ctx, o);
  const menus = user.isAdmin ? (await o.store.menus.allMenus()).filter((m) => m.status !== 'disabled') : await withFolders(o.store, await o.store.menus.menusForUser(user.id));
  ctx.body = menus.map((m) => ({
    id: m.id,
    code: m.code ?? null,
    name: m.name,
    ...modelMenuTitles(o.registry, m),
    type: m.type,
    value: m.value ?? null,
    icon: m.icon ?? null,
    parentId: m.parentId ?? null,
    status: m.status,
  }));
}

/**
 * The login routes under the configured prefix (`/fw-api` by default): `POST /login`,
 * `GET|POST /logout`, `POST /change-pwd`, `GET /code-img`, `GET /userinfo`, `GET /menu`,
 * `GET /login-settings` (open: title, password transfer encoding, captcha threshold, sign-in
 * providers), `POST /open-api/token` (an open-API key's app id and secret exchanged for a token),
 * and the session routes `GET /sessions`, `GET /sessions/online`, `DELETE /sessions/{id}`,
 * `POST /sessions/revoke-others`, and the signed-in user's own preferences `GET`, `PUT` and
 * `DELETE /prefs/{key}` (see `docs/login.md`).
 * Requests to other paths pass through untouched.
 *
 * @throws {FwDefinitionError} at once for a missing store, token service or ephemeral store, a
 * proxy method that is not a function, or a bad option.
 * @example
 * app.use(fwLogin({ store, tokens, ephemeral: new MemoryEphemeralStore(), proxy: LdapLogin }));
 */
export function fwLogin(options: FwLoginOptions): Middleware {
  const o = resolveOptions(options);
  const router = new Router({ prefix: o.config['fw-app.apiPrefix'] });
  router.post('/login', route(o, login));
  router.get('/logout', route(o, logout));
  router.post('/logout', route(o, logout));
  router.post('/change-pwd', route(o, changePwd));
  router.get('/code-img', route(o, codeImage));
  router.get('/userinfo', route(o, userInfo));
  router.get('/menu', route(o, menu));
  router.get('/login-settings', route(o, settings));
  router.post('/open-api/token', route(o, openApiToken));
  addSessionRoutes(router, { store: o.store, tokens: o.tokens, logout: async (token) => o.proxy.logout(token), requireAuth: (ctx) => requireAuth(ctx, o) });
  addPrefRoutes(router, { store: o.store, requireAuth: (ctx) => requireAuth(ctx, o) });
  addActivityRoutes(router, { store: o.store, requireAuth: (ctx) => requireAuth(ctx, o) });
  // A login path asked with another method (GET /login) is a 405 naming the right one.
  const routes = routesWithAllowedMethods(router);
  return async function fwLogin(ctx, next) {
    await routes(ctx, next);
  };
}
