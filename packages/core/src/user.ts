/**
 * The signed-in user as the framework sees it. `id` must be the id of a stored `fw_user` row:
 * roles and menu grants are looked up by it.
 */
export interface FwUser {
  /** Id of the `fw_user` row. */
  id: number;
  /** Login account, unique. */
  account: string;
  /** Display name. */
  name?: string | null | undefined;
  /** Administrators hold every menu grant (but never reopen `ai: false` or `cellEdit: false`). */
  isAdmin?: boolean | undefined;
}

/** Account status values of `fw_user.status`. */
export const USER_STATUS = { NORMAL: 'normal', LOCKED: 'locked' } as const;
/** One of {@link USER_STATUS}. */
export type UserStatus = (typeof USER_STATUS)[keyof typeof USER_STATUS];

/** Menu status values of `fw_menu.status`: a disabled menu grants nothing; a hidden one still grants. */
export const MENU_STATUS = { OPEN: 'open', HIDDEN: 'hidden', DISABLED: 'disabled' } as const;
/** One of {@link MENU_STATUS}. */
export type MenuStatus = (typeof MENU_STATUS)[keyof typeof MENU_STATUS];

/**
 * Why a sign-in failed, as `fw_login_log.reason` records it: a class, never the password and
 * never a login hook's own text (which may echo what was typed). Issue 19 §6.
 */
export const LOGIN_FAILURE_REASON = {
  /** Unknown account or wrong password (one class on purpose: the client cannot tell them apart either). */
  BAD_CREDENTIALS: 'bad-credentials',
  /** The captcha was required and missing, wrong or expired. */
  CAPTCHA: 'captcha',
  /** Refused before any check: too many failures from this address or of this account (429). */
  THROTTLED: 'throttled',
  /** The stored account is locked (or in any status but `normal`). */
  LOCKED: 'locked',
  /** The stored account has expired. */
  EXPIRED: 'expired',
  /** The stored account's IP allowlist does not hold the client address. */
  IP_NOT_ALLOWED: 'ip-not-allowed',
  /** The credentials checked out elsewhere, but no `fw_user` row matches (a hook's user, a sign-on account). */
  NOT_STORED: 'not-stored',
  /** A login hook refused with a reason of its own (`login` threw it, or `loginSuccess` threw). */
  REFUSED_BY_HOOK: 'refused-by-hook',
  /** A login hook failed unexpectedly (a bug, a driver error); its text went to `app.on('error')`. */
  HOOK_ERROR: 'hook-error',
  /** A summary row: failures beyond the login log's write caps, counted in `attempts`. */
  RATE_LIMITED: 'rate-limited',
} as const;
/** One of {@link LOGIN_FAILURE_REASON}. */
export type LoginFailureReason = (typeof LOGIN_FAILURE_REASON)[keyof typeof LOGIN_FAILURE_REASON];
