import { FwError } from '@fw/core';

/** Error codes of the login package, with their HTTP status and default message. */
export const LOGIN_ERROR_CODES = {
  PASSWORD_ENCODING_INVALID: { status: 400, message: 'The password is not encoded as the server expects' },
  CAPTCHA_MARK_INVALID: { status: 400, message: 'The captcha mark must be 8 to 64 characters of A-Z, a-z, 0-9, _ and -' },
  NO_LOCAL_PASSWORD: { status: 400, message: 'This account has no local password to change' },
  WRONG_PASSWORD: { status: 422, message: 'The current password is wrong' },
  PASSWORDS_DIFFER: { status: 422, message: 'The two new passwords differ' },
  PASSWORD_REFUSED: { status: 422, message: 'The new password was refused' },
  PASSWORD_POLICY: { status: 422, message: 'The new password does not meet the password policy' },
  ACCOUNT_DISABLED: { status: 401, message: 'This account cannot be used now' },
  LOGIN_UNAVAILABLE: { status: 503, message: 'Logins cannot be checked right now; try again shortly' },
  // Sessions a person can see and end (issue 19 §6).
  SESSION_ID_INVALID: { status: 400, message: 'This is not a session id' },
  SESSION_NOT_FOUND: { status: 404, message: 'No such session' },
} as const satisfies Record<string, { status: number; message: string }>;

/** A code of {@link LOGIN_ERROR_CODES}. */
export type LoginErrorCode = keyof typeof LOGIN_ERROR_CODES;

/** An {@link FwError} with one of the login package's codes. */
export function loginError(code: LoginErrorCode, message?: string, details?: FwError['details'], headers?: Record<string, string>): FwError {
  return new FwError(code, message ?? LOGIN_ERROR_CODES[code].message, {
    status: LOGIN_ERROR_CODES[code].status,
    ...(details ? { details } : {}),
    ...(headers ? { headers } : {}),
  });
}
