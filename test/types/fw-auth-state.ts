// A type test, compiled by the root `tsc` (never run): a route behind fwAuth reads
// `ctx.state.fw` without `!`, a host extends the state, and an optional fwAuth stays optional.
import Koa from 'koa';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { fwAuth, type FwAuthState } from '@fw/login';
import type { FwStore } from '@fw/store';
import type { FwTokenService } from '@fw/token';

export function routes(tokens: FwTokenService, store: FwStore): Router {
  const router = new Router();
  router.get('/me', fwAuth({ tokens, store }), (ctx) => {
    ctx.body = { account: ctx.state.fw.user.account, admin: ctx.state.fw.user.isAdmin };
  });

  // A host's own state on top of Fw's.
  interface TenantState extends FwAuthState {
    tenant: string;
  }
  const tenant: Middleware<TenantState> = async (ctx, next) => {
    ctx.state.tenant = `t-${ctx.state.fw.user.id}`;
    await next();
  };
  router.get('/tenant', fwAuth({ tokens, store }), tenant, (ctx) => {
    ctx.body = `${ctx.state.tenant} ${ctx.state.fw.token.length}`;
  });

  router.get('/maybe', fwAuth({ tokens, store, optional: true }), (ctx) => {
    // @ts-expect-error — an optional fwAuth lets anonymous requests through: fw may be missing.
    ctx.body = ctx.state.fw.user.account;
  });
  return router;
}

export function plain(tokens: FwTokenService, store: FwStore): Koa {
  // Still a plain Koa middleware: app.use, arrays of middleware, and a call with any context.
  const app = new Koa();
  const auth = fwAuth({ tokens, store });
  app.use(auth);
  const parts: Middleware[] = [auth];
  app.use(async (ctx, next) => {
    await auth(ctx, next);
    await parts[0]!(ctx, next);
  });
  return app;
}
