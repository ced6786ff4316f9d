import { UNAVAILABLE_RETRY_AFTER, isFwError, isUnavailableError, unavailableError, type FwError } from '@fw/core';
import { loginError } from './error-codes.js';

const BRAND: unique symbol = Symbol.for('fw.login.unavailable') as never;

/** Options of {@link LoginUnavailableError}. */
export interface LoginUnavailableOptions {
  /** Seconds the client is asked to wait (`Retry-After`). @default 5 */
  retryAfter?: number;
  /** The underlying failure, kept for logs; never sent to the client. */
  cause?: unknown;
}

/**
 * What a login hook throws when it cannot check the credentials at all because its backend (a
 * directory, a legacy database, an identity provider) is unreachable, as opposed to refusing them.
 * The login route then answers 503 `LOGIN_UNAVAILABLE` with `Retry-After`, and the attempt is not
 * counted as a failed login: a directory outage must not put a whole office behind one address
 * on captcha and then lock it out (issue 10 §2).
 *
 * @example
 * class LdapLogin extends BaseLoginProxy {
 *   override async login(account: string, pwd: string) {
 *     try {
 *       await ldapBind(account, pwd);
 *     } catch (error) {
 *       if (isConnectionError(error)) throw new LoginUnavailableError('The directory cannot be reached', { cause: error });
 *       throw new Error('Incorrect account or password');
 *     }
 *     return this.users.requireStoredUser(account);
 *   }
 * }
 */
export class LoginUnavailableError extends Error {
  /** Seconds the client is asked to wait before trying again. */
  readonly retryAfter: number;
  readonly [BRAND] = true;

  constructor(message = 'Logins cannot be checked right now; try again shortly', options: LoginUnavailableOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LoginUnavailableError';
    const retryAfter = options.retryAfter ?? UNAVAILABLE_RETRY_AFTER;
    this.retryAfter = Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : UNAVAILABLE_RETRY_AFTER;
  }
}

/** True for a {@link LoginUnavailableError}, also one made by another copy of this package. */
export function isLoginUnavailableError(error: unknown): error is LoginUnavailableError {
  return typeof error === 'object' && error !== null && (error as { [BRAND]?: unknown })[BRAND] === true;
}

/** How a failed credential check ends. */
export type LoginFailure =
  /** The hook said its backend is down: 503 `LOGIN_UNAVAILABLE`, not counted. */
  | { kind: 'hook-unavailable'; error: LoginUnavailableError }
  /** Fw's own backend (or the hook's database driver) cannot be reached: 503 `UNAVAILABLE`, not counted. */
  | { kind: 'unavailable'; error: unknown }
  /** A deliberate refusal: its text is the reason. */
  | { kind: 'refused'; reason: string }
  /** Anything else (a driver error, a bug): the generic reason, and the error is reported, never shown. */
  | { kind: 'unexpected'; error: unknown };

// Properties that mark an error as coming from a driver or the system rather than from a hook
// author: their messages may hold SQL, column names or addresses.
const DRIVER_MARKS = ['code', 'errno', 'sql', 'sqlMessage', 'sqlState', 'severity', 'routine', 'syscall'];

/**
 * Sorts what a login hook threw. A deliberate refusal keeps its text as the reason, as the
 * login-hook rule says: a thrown string, a plain `Error` (exactly that class, without a driver's
 * `code`, `errno`, `sql`… properties), an `FwError` below 500, or any error marked `expose: true`
 * (the `http-errors` convention). Everything else — a `TypeError`, a database error, whose text
 * may carry SQL and column names — is unexpected and answers the generic reason (issue 10 §7).
 */
export function classifyLoginFailure(error: unknown): LoginFailure {
  if (isLoginUnavailableError(error)) return { kind: 'hook-unavailable', error };
  if (isUnavailableError(error)) return { kind: 'unavailable', error };
  if (typeof error === 'string') return { kind: 'refused', reason: error };
  if (isFwError(error)) return error.status < 500 ? { kind: 'refused', reason: error.message } : { kind: 'unexpected', error };
  if (error instanceof Error) {
    const exposed = (error as { expose?: unknown }).expose === true;
    const plain = Object.getPrototypeOf(error) === Error.prototype && !DRIVER_MARKS.some((mark) => mark in error);
    if (exposed || plain) return { kind: 'refused', reason: error.message };
  }
  return { kind: 'unexpected', error };
}

/** The 503 of a check that could not run: the hook's `LOGIN_UNAVAILABLE`, or `UNAVAILABLE` for a backend that is down. */
export function loginOutage(failure: Extract<LoginFailure, { kind: 'hook-unavailable' | 'unavailable' }>): FwError {
  if (failure.kind === 'unavailable') return unavailableError(failure.error);
  const { message, retryAfter } = failure.error;
  return loginError('LOGIN_UNAVAILABLE', message.slice(0, 500) || undefined, undefined, { 'Retry-After': String(retryAfter) });
}

/** A refusal's text as the client sees it: at most 500 characters, and never empty. */
export function refusalText(reason: unknown): string {
  const message = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : '';
  return message.trim() === '' ? 'Login failed' : message.slice(0, 500);
}
