import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import { FwError, LOGIN_FAILURE_REASON, accountProblem, normalizeAccount, unavailableError, type FwErrorDetail, type FwUser, type LoginFailureReason } from '@fw/core';
import { fwRoute, isJsonObject, readJsonBody, requireAuthState, routesWithAllowedMethods } from '@fw/http';
import type { FwRequestState } from './auth.js';
import { failureReasonOf, type FailedSignIn } from './failed-logins.js';
import { LOGIN_ERROR_CODES, loginError } from './error-codes.js';
import { classifyLoginFailure, type LoginFailure } from './login-failure.js';
import { resolveOptions, type FwLoginOptions, type ResolvedOptions } from './login-options.js';
import { loginSettings } from './login-settings.js';
import { decodeTransferredPassword } from './password-transfer.js';
import { checkedUser, runWithLoginRequest } from './request-context.js';
import { addActivityRoutes } from './activity-routes.js';
import { withFolders } from './menu-folders.js';
import { addSessionRoutes } from './session-routes.js';
import { addPrefRoutes } from './pref-routes.js';
import { issueLoginToken } from './sign-in.js';
import { LOGIN_REASONS } from './user-service.js';
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

const TOO_MANY = 'Too many failed logins; try again later';

/**
 * Logs a failed sign-in of this request (issue 19 §6). Awaited, so a flood waits on its own writes
 * rather than piling them up; it costs the same for an unknown account and a wrong password, and
 * a write that fails is reported to `app.on('error')` without changing the answer.
 */
async function logFailure(ctx: Context, o: ResolvedOptions, attempt: Omit<FailedSignIn, 'ip' | 'userAgent'>): Promise<void> {
  await o.failedLogins.record({ ...attempt, ip: ctx.ip, userAgent: ctx.get('user-agent') || null }, (error) => report(ctx, error));
}

async function login(ctx: Context, o: ResolvedOptions): Promise<void> {
  const body = await readJsonBody(ctx, { limit: o.bodyLimit });
  const input = readLoginBody(body);
  const ip = ctx.ip;
  const before = await o.attempts.state(input.account, ip);
  if (before.lockedForMs !== undefined) {
    await logFailure(ctx, o, { account: input.account, reason: LOGIN_FAILURE_REASON.THROTTLED, method: 'password' });
    return fail(ctx, TOO_MANY, before.captchaRequired, before.lockedForMs);
  }

  // Decoding errors are the client's bug, not a guess: 400, and not counted.
  const pwd = o.config['fw-app.pwdTransferEncrypt'] ? decodeTransferredPassword(input.pwd) : input.pwd;

  // `known`: the stored user, once the route has read it (refusals after the password matched).
  let known: { id: number; account: string } | undefined;
  const refuse = async (reason: string, kind: LoginFailureReason = failureReasonOf(reason)): Promise<void> => {
    const after = await o.attempts.fail(input.account, ip);
    await logFailure(ctx, o, { account: input.account, reason: kind, method: 'password', ...(known ? { user: known } : {}) });
    fail(ctx, after.lockedForMs !== undefined ? TOO_MANY : reason, after.captchaRequired, after.lockedForMs);
  };
  if (before.captchaRequired) {
    if (input.verifyCode === undefined || input.verifyCodeMark === undefined) return refuse('A verification code is required', LOGIN_FAILURE_REASON.CAPTCHA);
    if (!(await o.captchas.check(input.verifyCodeMark, input.verifyCode))) return refuse('The verification code is wrong or has expired', LOGIN_FAILURE_REASON.CAPTCHA);
  }
  // No stored account looks like this (writes refuse it), and no password holds a NUL: the answer
  // of an unknown account, counted like one, and the text never reaches a database that would
  // choke on it (PostgreSQL refuses NUL) or a hook that would echo it (issue 10 §6, §7).
  if (accountProblem(input.account) !== undefined || pwd.includes('\u0000')) return refuse(LOGIN_REASONS.BAD_CREDENTIALS);

  const request = { ip, headers: ctx.headers, body: body as Record<string, unknown>, query: ctx.query, ctx };
  let user: FwUser;
  let stored: Awaited<ReturnType<typeof o.store.users.findById>>;
  let grantedAdmin = false;
  try {
    const returned = await runWithLoginRequest(request, async () => o.proxy.login(input.account, pwd));
    if (!returned || typeof returned.id !== 'number') throw new Error(LOGIN_REASONS.NOT_STORED);
    // The built-in check read this row after the password matched, in this request; a hook's user is read here.
    stored = checkedUser(request, returned.id) ?? (await o.store.users.findById(returned.id));
    if (!stored) throw new Error(LOGIN_REASONS.NOT_STORED);
    known = { id: stored.id, account: stored.account };
    const refusal = o.users.refusal(stored, ip);
    if (refusal) throw new Error(refusal);
    // A hook that returns isAdmin: true makes this sign-in an administrator (an LDAP group, say):
    // the token records it, so it holds for the token's life on every instance, and the stored
    // flag is left alone. Otherwise the stored row decides, re-read on every request.
    grantedAdmin = returned.isAdmin === true && stored.isAdmin !== true;
    user = { id: stored.id, account: stored.account, name: stored.name ?? null, isAdmin: stored.isAdmin === true || grantedAdmin };
  } catch (error) {
    const failure = classifyLoginFailure(error);
    switch (failure.kind) {
      // Neither outage is a guess: not counted, so an office behind one address is not locked out
      // by a directory or database that is down (issue 10 §2).
      case 'hook-unavailable':
      case 'unavailable':
        throw outage(failure);
      case 'refused':
        return refuse(reasonOf(failure.reason));
      case 'unexpected':
        // Its text may hold SQL or a stack's worth of internals: reported to the host, never shown.
        report(ctx, failure.error);
        return refuse(LOGIN_REASONS.BAD_CREDENTIALS, LOGIN_FAILURE_REASON.HOOK_ERROR);
    }
  }

  const issued = await issueLoginToken(o, { ip: ctx.ip, userAgent: ctx.get('user-agent') || null }, user, 'password', { admin: grantedAdmin });
  if (!issued) return refuse('The login was refused after it succeeded', LOGIN_FAILURE_REASON.REFUSED_BY_HOOK);
  await o.attempts.succeed(input.account, ip);
  // `stored` was read after the password check, within this request: no third read of the row.
  ctx.status = 200;
  ctx.body = {
    pass: true,
    token: issued.token,
    expire: issued.expiresAt.toISOString(),
    resetPwd: needsPasswordReset(stored),
    useVerifyCode: false,
  } satisfies LoginResponse;
}

/** The 503 of a check that could not run: the hook's `LOGIN_UNAVAILABLE`, or `UNAVAILABLE` for a backend that is down. */
function outage(failure: Extract<LoginFailure, { kind: 'hook-unavailable' | 'unavailable' }>): FwError {
  if (failure.kind === 'unavailable') return unavailableError(failure.error);
  const { message, retryAfter } = failure.error;
  return loginError('LOGIN_UNAVAILABLE', message.slice(0, 500) || undefined, undefined, { 'Retry-After': String(retryAfter) });
}

/** Hands an unexpected hook failure to `app.on('error')`; Koa's default listener refuses non-errors, so those are wrapped. */
function report(ctx: Context, error: unknown): void {
  ctx.app.emit('error', error instanceof Error ? error : new Error('A login hook threw a value that is not an Error', { cause: error }), ctx);
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return message.trim() === '' ? 'Login failed' : message.slice(0, 500);
}

/** True when the user holds a local password that an administrator set and the user has not changed since. */
function needsPasswordReset(stored: { hasPassword: boolean; resetPwdTime: Date | null } | undefined): boolean {
  return stored !== undefined && stored.hasPassword && stored.resetPwdTime === null;
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
  const subject = `open-api:${appId as string}`;
  // The app id is the account as typed; it names no fw_user account, so none is looked up by it.
  const logged = (reason: LoginFailureReason, user: { id: number; account: string } | null = null) =>
    logFailure(ctx, o, { account: appId as string, reason, method: 'open-api', user });
  const state = await o.attempts.state(subject, ctx.ip);
  const locked = (ms: number) => new FwError('TOO_MANY_ATTEMPTS', TOO_MANY, { headers: { 'Retry-After': String(Math.ceil(ms / 1000)) } });
  if (state.lockedForMs !== undefined) {
    await logged(LOGIN_FAILURE_REASON.THROTTLED);
    throw locked(state.lockedForMs);
  }
  const key = await o.store.openApis.verify(appId as string, secret as string);
  const stored = key ? await o.store.users.findById(key.userId) : undefined;
  const refusal = stored ? o.users.refusal(stored, ctx.ip) : 'Unknown app id or wrong secret';
  if (!key || !stored || refusal) {
    const after = await o.attempts.fail(subject, ctx.ip);
    if (!key) await logged(LOGIN_FAILURE_REASON.BAD_CREDENTIALS);
    else if (!stored) await logged(LOGIN_FAILURE_REASON.NOT_STORED);
    else await logged(failureReasonOf(refusal ?? ''), { id: stored.id, account: stored.account });
    if (after.lockedForMs !== undefined) throw locked(after.lockedForMs);
    throw new FwError('UNAUTHENTICATED', key && stored ? refusal : 'Unknown app id or wrong secret');
  }
  const user = { id: stored.id, account: stored.account, name: stored.name ?? null, isAdmin: stored.isAdmin === true };
  const issued = await issueLoginToken(o, { ip: ctx.ip, userAgent: ctx.get('user-agent') || null }, user, `open-api:${key.appId}`);
  if (!issued) {
    await logged(LOGIN_FAILURE_REASON.REFUSED_BY_HOOK, { id: stored.id, account: stored.account });
    throw new FwError('UNAUTHENTICATED', 'The sign-in was refused');
  }
  await o.attempts.succeed(subject, ctx.ip);
  ctx.body = { token: issued.token, expire: issued.expiresAt.toISOString() };
}

async function logout(ctx: Context, o: ResolvedOptions): Promise<void> {
  const state = await requireAuth(ctx, o, 'allowed');
  await o.tokens.revoke(state.token);
  await o.proxy.logout(state.token);
  ctx.body = { ok: true };
}

async function changePassword(ctx: Context, o: ResolvedOptions): Promise<void> {
  const state = await requireAuth(ctx, o, 'allowed');
  const body = await readJsonBody(ctx, { limit: o.bodyLimit });
  if (!isJsonObject(body)) throw new FwError('BAD_REQUEST', 'The body must be a JSON object');
  const details: FwErrorDetail[] = [];
  for (const name of ['pwd', 'newPwd', 'newPwd2'] as const) {
    const value = body[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > PWD_MAX) details.push(badField(name, `${name} must be a string of 1 to ${PWD_MAX} characters`));
  }
  if (details.length > 0) throw new FwError('BAD_REQUEST', 'The change-password body is malformed', { details });
  const decode = (value: string) => (o.config['fw-app.pwdTransferEncrypt'] ? decodeTransferredPassword(value) : value);
  const [pwd, newPwd, newPwd2] = [decode(body.pwd as string), decode(body.newPwd as string), decode(body.newPwd2 as string)];
  // scrypt's HMAC pads keys with zero bytes, so "pass" and "pass\0" would be one password.
  const withNul = (['pwd', 'newPwd', 'newPwd2'] as const).filter((_, i) => [pwd, newPwd, newPwd2][i]!.includes('\u0000'));
  if (withNul.length > 0)
    throw new FwError('BAD_REQUEST', 'A password must not contain NUL characters', { details: withNul.map((name) => badField(name, `${name} must not contain NUL characters`)) });
  const { user } = state;

  const attempt = await o.attempts.state(user.account, ctx.ip);
  if (attempt.lockedForMs !== undefined) {
    throw new FwError('TOO_MANY_ATTEMPTS', TOO_MANY, { headers: { 'Retry-After': String(Math.ceil(attempt.lockedForMs / 1000)) } });
  }
  if (!(await o.store.users.findById(user.id))?.hasPassword) throw loginError('NO_LOCAL_PASSWORD');
  // Checked first, and counted like a failed login, so this route cannot be used to guess.
  if (!(await o.users.checkPassword(user.id, pwd))) {
    await o.attempts.fail(user.account, ctx.ip);
    throw loginError('WRONG_PASSWORD', undefined, [{ path: 'pwd', type: 'wrongPassword', message: 'The current password is wrong' }]);
  }
  if (newPwd !== newPwd2) throw loginError('PASSWORDS_DIFFER', undefined, [{ path: 'newPwd2', type: 'oneOf', message: 'The two new passwords differ' }]);
  // The one policy of every path that sets a password (issue 19 §2), before the host's own hook.
  const refusals = o.passwordPolicy.check(newPwd, { account: user.account, path: 'newPwd' });
  if (refusals.length > 0) throw loginError('PASSWORD_POLICY', refusals[0]!.message, refusals);
  try {
    await o.proxy.beforeChangePwd(user, newPwd);
  } catch (error) {
    const failure = classifyLoginFailure(error);
    if (failure.kind === 'hook-unavailable' || failure.kind === 'unavailable') throw outage(failure);
    if (failure.kind === 'unexpected') report(ctx, failure.error);
    const reason = failure.kind === 'refused' ? reasonOf(failure.reason) : LOGIN_ERROR_CODES.PASSWORD_REFUSED.message;
    throw loginError('PASSWORD_REFUSED', reason, [{ path: 'newPwd', type: 'beforeChangePwd', message: reason }]);
  }
  await o.users.setPassword(user.id, newPwd);
  // Whoever held another session of this account (perhaps with the old password) is signed out on
  // every instance; the session that proved the old password keeps working (issue 10 §3).
  await o.tokens.revokeUser(user.id, { except: state.token });
  await o.attempts.succeed(user.account, ctx.ip);
  await o.proxy.afterChangePwd(user, pwd, newPwd);
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
  router.post('/change-pwd', route(o, changePassword));
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
