// `POST /change-pwd` as plain data in, plain outcome out (issue 22 §4). The forced first change
// of a password an administrator set is this same flow: the route lets the session of a user who
// must change the password reach it, and the saved password lifts the requirement.
import { FwError, type FwErrorDetail, type FwUser } from '@fw/core';
import { LOGIN_ERROR_CODES } from '../error-codes.js';
import { classifyLoginFailure, loginOutage, refusalText } from '../login-failure.js';
import type { ResolvedOptions } from '../login-options.js';
import { TOO_MANY, plainPassword, type FlowRequest } from './flow-request.js';

/** What {@link changePassword} needs of `fwLogin`'s resolved options. */
export type ChangePasswordServices = Pick<ResolvedOptions, 'attempts' | 'config' | 'passwordPolicy' | 'proxy' | 'store' | 'tokens' | 'users'>;

/** A password change of a signed-in user, the passwords as the client sent them (transfer-encoded while `fw-app.pwdTransferEncrypt` is on). */
export interface ChangePasswordInput {
  /** The signed-in user. */
  user: FwUser;
  /** The session's token: it keeps working, every other token of the user is revoked. */
  token: string;
  pwd: string;
  newPwd: string;
  newPwd2: string;
}

/** Why a password change was refused: the error code the route answers with. */
export type ChangePasswordRefusal = 'TOO_MANY_ATTEMPTS' | 'NO_LOCAL_PASSWORD' | 'WRONG_PASSWORD' | 'PASSWORDS_DIFFER' | 'PASSWORD_POLICY' | 'PASSWORD_REFUSED';

/**
 * How a password change ended. `ok: false`: `code` says why, `reason` is the text the client may
 * see, `details` the failures per field (yup's shape), `lockedForMs` set while the account or
 * address is locked out.
 */
export type ChangePasswordOutcome =
  | { ok: true }
  | { ok: false; code: 'TOO_MANY_ATTEMPTS'; reason: string; lockedForMs: number }
  | { ok: false; code: Exclude<ChangePasswordRefusal, 'TOO_MANY_ATTEMPTS'>; reason: string; details?: FwErrorDetail[] };

const PASSWORD_FIELDS = ['pwd', 'newPwd', 'newPwd2'] as const;

function refused(code: Exclude<ChangePasswordRefusal, 'TOO_MANY_ATTEMPTS'>, details?: FwErrorDetail[], reason: string = LOGIN_ERROR_CODES[code].message): ChangePasswordOutcome {
  return { ok: false, code, reason, ...(details ? { details } : {}) };
}

/**
 * Changes the signed-in user's local password: the current one is checked first and a wrong one is
 * counted like a failed login, so this cannot be used to guess; then the two new ones must match,
 * pass the password policy and the hook's `beforeChangePwd`. Then the password is saved, every
 * other session of the user ends (issue 10 §3), and `afterChangePwd` runs.
 *
 * @throws {FwError} 400 `PASSWORD_ENCODING_INVALID` or `BAD_REQUEST` (a NUL character) for a
 * malformed password; 503 `LOGIN_UNAVAILABLE` or `UNAVAILABLE` when `beforeChangePwd`'s backend or
 * Fw's own store cannot be reached.
 */
export async function changePassword(services: ChangePasswordServices, input: ChangePasswordInput, request: FlowRequest): Promise<ChangePasswordOutcome> {
  const [pwd, newPwd, newPwd2] = PASSWORD_FIELDS.map((name) => plainPassword(services, input[name])) as [string, string, string];
  // scrypt's HMAC pads keys with zero bytes, so "pass" and "pass\0" would be one password.
  const withNul = PASSWORD_FIELDS.filter((_, i) => [pwd, newPwd, newPwd2][i]!.includes('\u0000'));
  if (withNul.length > 0) {
    throw new FwError('BAD_REQUEST', 'A password must not contain NUL characters', {
      details: withNul.map((name) => ({ path: name, type: 'typeError', message: `${name} must not contain NUL characters` })),
    });
  }
  const { user } = input;

  const attempt = await services.attempts.state(user.account, request.ip);
  if (attempt.lockedForMs !== undefined) return { ok: false, code: 'TOO_MANY_ATTEMPTS', reason: TOO_MANY, lockedForMs: attempt.lockedForMs };
  if (!(await services.store.users.findById(user.id))?.hasPassword) return refused('NO_LOCAL_PASSWORD');
  // Checked first, and counted like a failed login, so this cannot be used to guess.
  if (!(await services.users.checkPassword(user.id, pwd))) {
    await services.attempts.fail(user.account, request.ip);
    return refused('WRONG_PASSWORD', [{ path: 'pwd', type: 'wrongPassword', message: 'The current password is wrong' }]);
  }
  if (newPwd !== newPwd2) return refused('PASSWORDS_DIFFER', [{ path: 'newPwd2', type: 'oneOf', message: 'The two new passwords differ' }]);
  // The one policy of every path that sets a password (issue 19 §2), before the host's own hook.
  const breaches = services.passwordPolicy.check(newPwd, { account: user.account, path: 'newPwd' });
  if (breaches.length > 0) return refused('PASSWORD_POLICY', breaches, breaches[0]!.message);
  try {
    await services.proxy.beforeChangePwd(user, newPwd);
  } catch (error) {
    const failure = classifyLoginFailure(error);
    if (failure.kind === 'hook-unavailable' || failure.kind === 'unavailable') throw loginOutage(failure);
    if (failure.kind === 'unexpected') request.report?.(failure.error);
    const reason = failure.kind === 'refused' ? refusalText(failure.reason) : LOGIN_ERROR_CODES.PASSWORD_REFUSED.message;
    return refused('PASSWORD_REFUSED', [{ path: 'newPwd', type: 'beforeChangePwd', message: reason }], reason);
  }
  await services.users.setPassword(user.id, newPwd);
  // Whoever held another session of this account (perhaps with the old password) is signed out on
  // every instance; the session that proved the old password keeps working (issue 10 §3).
  await services.tokens.revokeUser(user.id, { except: input.token });
  await services.attempts.succeed(user.account, request.ip);
  await services.proxy.afterChangePwd(user, pwd, newPwd);
  return { ok: true };
}
