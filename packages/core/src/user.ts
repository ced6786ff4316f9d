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

/**
 * The stored-user fields {@link toFwUser} and the login checks read: a row of `fw_user` as the
 * store's repositories return it, or as a host read it itself.
 */
export interface StoredUserLike {
  id: number;
  account: string;
  name?: string | null | undefined;
  /**
   * `fw_user.is_admin`. The store's repositories give a boolean on every dialect; a row read with
   * plain SQL holds the driver's value: `true` / `false` on PostgreSQL and SQL Server, `1` / `0`
   * on SQLite, MySQL and MariaDB. {@link toFwUser} takes all of them.
   */
  isAdmin?: boolean | number | null | undefined;
  status: string;
  expireDate?: Date | null | undefined;
  whiteIp?: string | null | undefined;
}

/** Options of {@link toFwUser}. */
export interface ToFwUserOptions {
  /**
   * This session is an administrator's whatever the row says: a login hook returned
   * `isAdmin: true` at sign-in, and the token records it (see docs/login.md).
   * @default false
   */
  admin?: boolean;
}

/**
 * The public view of a stored user, the one way every package builds an {@link FwUser} from a
 * row: what answers, hooks and `ctx.state.fw.user` carry (never the password, status or limits).
 * `isAdmin` is true only for a stored `true` or `1` (or with `options.admin`), never for any
 * other truthy value a careless row might hold.
 *
 * @example
 * const user = toFwUser(await store.users.findById(id));
 */
export function toFwUser(row: StoredUserLike, options: ToFwUserOptions = {}): FwUser {
  const storedAdmin = row.isAdmin === true || row.isAdmin === 1;
  return { id: row.id, account: row.account, name: row.name ?? null, isAdmin: storedAdmin || options.admin === true };
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
