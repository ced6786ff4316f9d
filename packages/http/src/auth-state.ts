import type { Context } from 'koa';
import { FwError } from '@fw/core';

/** Options of {@link requireAuthState}. */
export interface RequireAuthOptions {
  /**
   * This route is part of the password change (userinfo, change-pwd, logout): a user who must
   * change the password may call it. Every other route refuses such a state.
   * @default false
   */
  allowPasswordChange?: boolean;
}

/**
 * The signed-in state of a request: `ctx.state.fw` when something before (fwAuth, the login
 * routes) already set it, else what `authenticate` finds (kept in `ctx.state.fw` for what follows).
 * Generic over the state, so that it needs no login package: `@fw/login`'s `Authenticator` is
 * the usual `authenticate` (`(ctx) => authenticator.authenticate(ctx)`).
 *
 * A state with `mustChangePassword: true` (a user whose password an administrator set) is refused
 * here, where every route reads it, unless the route opted in: the server holds such a token to
 * the password change whatever a client shows (issue 19 §3).
 * @throws {FwError} 401 `UNAUTHENTICATED` when there is none; 403 `PASSWORD_CHANGE_REQUIRED` for a
 * user who must change the password first, on a route that did not opt in.
 */
export async function requireAuthState<S>(ctx: Context, authenticate: (ctx: Context) => Promise<S | undefined>, options: RequireAuthOptions = {}): Promise<S> {
  const state = ctx.state as { fw?: S };
  const found = state.fw ?? (await authenticate(ctx));
  if (found === undefined || found === null) throw new FwError('UNAUTHENTICATED');
  state.fw = found;
  if ((found as { mustChangePassword?: unknown }).mustChangePassword === true && options.allowPasswordChange !== true) throw new FwError('PASSWORD_CHANGE_REQUIRED');
  return found;
}
