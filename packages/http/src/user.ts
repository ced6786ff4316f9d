import type { FwUser } from '@fw/core';

/** The stored-user fields {@link toFwUser} and the login service read. */
export interface StoredUserLike {
  id: number;
  account: string;
  name?: string | null | undefined;
  isAdmin?: boolean | undefined;
  status: string;
  expireDate?: Date | null | undefined;
  whiteIp?: string | null | undefined;
}

/** The public view of a stored user: what answers and `ctx.state.fw.user` carry (never the password, status or limits). */
export function toFwUser(user: StoredUserLike): FwUser {
  return { id: user.id, account: user.account, name: user.name ?? null, isAdmin: user.isAdmin === true };
}
