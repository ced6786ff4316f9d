import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'koa';

/** What a login hook can read about the request it is serving. */
export interface LoginRequest {
  /** Client IP (Koa's `ctx.ip`: honours `X-Forwarded-For` only when `app.proxy` is true). */
  ip: string;
  /** Request headers (lower-case names). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body, including any extra parameters beyond account and pwd. */
  body: Readonly<Record<string, unknown>>;
  /** Query-string parameters. */
  query: Readonly<Record<string, string | string[] | undefined>>;
  /** The Koa context itself, for anything else. */
  ctx: Context;
}

const storage = new AsyncLocalStorage<LoginRequest>();

/**
 * The request a login hook is being called for, so a custom `login` can read extra parameters,
 * headers or the IP without them being threaded through its signature. Undefined outside a
 * login-route call.
 *
 * @example
 * class TenantLogin extends BaseLoginProxy {
 *   override async login(account: string, pwd: string) {
 *     const tenant = currentLoginRequest()?.body.tenant;
 *     ...
 *   }
 * }
 */
export function currentLoginRequest(): LoginRequest | undefined {
  return storage.getStore();
}

/** Runs `fn` with `request` as the {@link currentLoginRequest}. */
export function runWithLoginRequest<T>(request: LoginRequest, fn: () => Promise<T>): Promise<T> {
  return storage.run(request, fn);
}
