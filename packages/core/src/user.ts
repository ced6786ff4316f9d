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
