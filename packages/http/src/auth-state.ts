import type { Context } from 'koa';
import { FwError } from '@fw/core';

/**
 * The signed-in state of a request: `ctx.state.fw` when something before (fwAuth, the login
 * routes) already set it, else what `authenticate` finds (kept in `ctx.state.fw` for what follows).
 * Generic over the state, so that it needs no login package: `@fw/login`'s `Authenticator` is
 * the usual `authenticate` (`(ctx) => authenticator.authenticate(ctx)`).
 * @throws {FwError} 401 `UNAUTHENTICATED` when there is none.
 */
export async function requireAuthState<S>(ctx: Context, authenticate: (ctx: Context) => Promise<S | undefined>): Promise<S> {
  const state = ctx.state as { fw?: S };
  const found = state.fw ?? (await authenticate(ctx));
  if (found === undefined || found === null) throw new FwError('UNAUTHENTICATED');
  state.fw = found;
  return found;
}
