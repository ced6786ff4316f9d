// The password sign-in of `POST /login` as plain data in, plain outcome out (issue 22 §4): the
// route parses the body and maps the outcome onto the answer; everything between is here.
import { LOGIN_FAILURE_REASON, accountProblem, toFwUser, type FwUser, type LoginFailureReason } from '@fw/core';
import type { FwUserRecord } from '@fw/store';
import { failureReasonOf } from '../failed-logins.js';
import { classifyLoginFailure, loginOutage, refusalText } from '../login-failure.js';
import type { ResolvedOptions } from '../login-options.js';
import { runWithLoginRequest, type LoginRequest } from '../request-context.js';
import { issueLoginToken } from '../sign-in.js';
import { LOGIN_REASONS, needsPasswordReset } from '../user-service.js';
import { TOO_MANY, logFailure, plainPassword, type FlowRequest } from './flow-request.js';

/** What {@link passwordSignIn} needs of `fwLogin`'s resolved options. */
export type PasswordSignInServices = Pick<ResolvedOptions, 'attempts' | 'captchas' | 'checkLogin' | 'config' | 'failedLogins' | 'proxy' | 'store' | 'tokens' | 'users'>;

/** A sign-in as the client sent it, its shape already checked (`fwLogin` answers 400 otherwise). */
export interface PasswordSignInInput {
  /** The account, NFC-normalised (`normalizeAccount` of `@fw/core`). */
  account: string;
  /** The password as sent: transfer-encoded while `fw-app.pwdTransferEncrypt` is on. */
  pwd: string;
  /** The captcha answer, when one is in play. */
  verifyCode?: string;
  /** The mark the captcha image was fetched with. */
  verifyCodeMark?: string;
}

/** The request of a password sign-in. */
export interface PasswordSignInRequest extends FlowRequest {
  /**
   * What the login hook reads through `currentLoginRequest()` while it runs. `fwLogin` passes the
   * Koa request; without it the hook reads undefined.
   */
  loginRequest?: LoginRequest;
}

/**
 * How a password sign-in ended. `ok: false` is a refusal the client may see: `reason` is its text,
 * `captcha` whether the next attempt needs a captcha, `lockedForMs` set while the account or
 * address is locked out (then `reason` says so), `failure` the class the login log recorded.
 */
export type PasswordSignInOutcome =
  { ok: true; token: string; expire: Date; resetPwd: boolean; user: FwUser } | { ok: false; reason: string; captcha: boolean; lockedForMs?: number; failure: LoginFailureReason };

type Refusal = Extract<PasswordSignInOutcome, { ok: false }>;

/** A checked sign-in: the stored row and the user the token is for, or why not. */
type Verdict =
  | { pass: true; stored: FwUserRecord; user: FwUser; grantedAdmin: boolean }
  | { pass: false; reason: string; failure?: LoginFailureReason; known?: { id: number; account: string } };

/**
 * Signs in with account and password: lockout, captcha, the login hook's check, the stored user's
 * status, expiry and IP allowlist, then a token. Every refusal is counted and written to the login
 * log; a hook's deliberate refusal keeps its text, an unexpected error gets the generic one and
 * goes to `request.report`.
 *
 * @throws {FwError} 400 `PASSWORD_ENCODING_INVALID` for a password that is not transfer-encoded as
 * configured (not counted); 503 `LOGIN_UNAVAILABLE` or `UNAVAILABLE` when the hook's backend or
 * Fw's own store cannot be reached (not counted, issue 10 §2).
 */
export async function passwordSignIn(services: PasswordSignInServices, input: PasswordSignInInput, request: PasswordSignInRequest): Promise<PasswordSignInOutcome> {
  const { account } = input;
  const { ip } = request;
  const before = await services.attempts.state(account, ip);
  if (before.lockedForMs !== undefined) {
    await logFailure(services, request, { account, reason: LOGIN_FAILURE_REASON.THROTTLED, method: 'password' });
    return { ok: false, reason: TOO_MANY, captcha: before.captchaRequired, lockedForMs: before.lockedForMs, failure: LOGIN_FAILURE_REASON.THROTTLED };
  }

  // Decoding errors are the client's bug, not a guess: 400, and not counted.
  const pwd = plainPassword(services, input.pwd);

  // `known`: the stored user, once it was read (refusals after the password matched).
  const refuse = async (reason: string, failure: LoginFailureReason = failureReasonOf(reason), known?: { id: number; account: string }): Promise<Refusal> => {
    const after = await services.attempts.fail(account, ip);
    await logFailure(services, request, { account, reason: failure, method: 'password', ...(known ? { user: known } : {}) });
    if (after.lockedForMs !== undefined) return { ok: false, reason: TOO_MANY, captcha: after.captchaRequired, lockedForMs: after.lockedForMs, failure };
    return { ok: false, reason, captcha: after.captchaRequired, failure };
  };
  if (before.captchaRequired) {
    if (input.verifyCode === undefined || input.verifyCodeMark === undefined) return refuse('A verification code is required', LOGIN_FAILURE_REASON.CAPTCHA);
    if (!(await services.captchas.check(input.verifyCodeMark, input.verifyCode))) return refuse('The verification code is wrong or has expired', LOGIN_FAILURE_REASON.CAPTCHA);
  }
  // No stored account looks like this (writes refuse it), and no password holds a NUL: the answer
  // of an unknown account, counted like one, and the text never reaches a database that would
  // choke on it (PostgreSQL refuses NUL) or a hook that would echo it (issue 10 §6, §7).
  if (accountProblem(account) !== undefined || pwd.includes('\u0000')) return refuse(LOGIN_REASONS.BAD_CREDENTIALS);

  const verdict = await verify(services, account, pwd, request);
  if (!verdict.pass) return refuse(verdict.reason, verdict.failure, verdict.known);
  const { stored, user, grantedAdmin } = verdict;
  const known = { id: stored.id, account: stored.account };

  const issued = await issueLoginToken(services, { ip, userAgent: request.userAgent }, user, 'password', { admin: grantedAdmin });
  if (!issued) return refuse('The login was refused after it succeeded', LOGIN_FAILURE_REASON.REFUSED_BY_HOOK, known);
  await services.attempts.succeed(account, ip);
  // `stored` was read after the password check, within this sign-in: no third read of the row.
  return { ok: true, token: issued.token, expire: issued.expiresAt, resetPwd: needsPasswordReset(stored), user };
}

/**
 * The credential check and the stored user's own limits. The built-in check answers a refusal as
 * data, with the row it read; a host's hook answers a user whose row is read here, or throws, and
 * its throw is sorted as the hook rules say.
 */
async function verify(services: PasswordSignInServices, account: string, pwd: string, request: PasswordSignInRequest): Promise<Verdict> {
  const { ip } = request;
  let stored: FwUserRecord | undefined;
  let returned: FwUser;
  try {
    const check = () => services.checkLogin(account, pwd, ip);
    const result = await (request.loginRequest ? runWithLoginRequest(request.loginRequest, check) : check());
    if (!result.pass) return { pass: false, reason: refusalText(result.reason) };
    if (!result.user || typeof result.user.id !== 'number') return { pass: false, reason: LOGIN_REASONS.NOT_STORED };
    returned = result.user;
    // The built-in check read this row after the password matched; a hook's user is read here.
    stored = result.stored !== undefined && result.stored.id === returned.id ? result.stored : await services.store.users.findById(returned.id);
  } catch (error) {
    const failure = classifyLoginFailure(error);
    switch (failure.kind) {
      // Neither outage is a guess: not counted, so an office behind one address is not locked out
      // by a directory or database that is down (issue 10 §2).
      case 'hook-unavailable':
      case 'unavailable':
        throw loginOutage(failure);
      case 'refused':
        return { pass: false, reason: refusalText(failure.reason) };
      case 'unexpected':
        // Its text may hold SQL or a stack's worth of internals: reported to the host, never shown.
        request.report?.(failure.error);
        return { pass: false, reason: LOGIN_REASONS.BAD_CREDENTIALS, failure: LOGIN_FAILURE_REASON.HOOK_ERROR };
    }
  }
  if (!stored) return { pass: false, reason: LOGIN_REASONS.NOT_STORED };
  const known = { id: stored.id, account: stored.account };
  const refusal = services.users.refusal(stored, ip);
  if (refusal) return { pass: false, reason: refusalText(refusal), known };
  // A hook that returns isAdmin: true makes this sign-in an administrator (an LDAP group, say):
  // the token records it, so it holds for the token's life on every instance, and the stored
  // flag is left alone. Otherwise the stored row decides, re-read on every request.
  const grantedAdmin = returned.isAdmin === true && !toFwUser(stored).isAdmin;
  return { pass: true, stored, user: toFwUser(stored, { admin: grantedAdmin }), grantedAdmin };
}
