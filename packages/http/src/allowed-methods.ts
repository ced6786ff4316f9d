import type { Context, Middleware } from 'koa';
import type Router from '@koa/router';
import { FwError } from '@fw/core';
import { renderError } from './errors.js';

/**
 * The methods `router` serves on `path` (HEAD comes with GET), leaving out the route registered
 * as `except` (a catch-all pattern that would match every path, such as `/data/:fw/:id`).
 */
export function allowedMethods(router: Router, path: string, except?: string): string[] {
  const methods = new Set<string>();
  for (const layer of router.match(path, 'GET').path) {
    if (except !== undefined && layer.path === except) continue;
    for (const method of layer.methods) methods.add(method);
  }
  return [...methods];
}

/** 405 `METHOD_NOT_ALLOWED` naming the methods the path takes, with the `Allow` header. */
export function methodNotAllowed(method: string, allow: readonly string[]): FwError {
  return new FwError('METHOD_NOT_ALLOWED', `${method} is not allowed here; this route takes ${allow.join(', ')}`, { headers: { Allow: allow.join(', ') } });
}

/**
 * A router's routes, plus the answer for a path it serves asked with another method: once the
 * rest of the app has had its turn and nothing answered (404 with no body), the request gets
 * 405 `METHOD_NOT_ALLOWED` with an `Allow` header (OPTIONS: 204 with `Allow`), instead of the
 * host's plain 404. Paths the router does not know are left alone.
 * @example app.use(routesWithAllowedMethods(router));
 */
export function routesWithAllowedMethods(router: Router): Middleware {
  const routes = router.routes() as unknown as Middleware;
  return async function routesWithAllowedMethods(ctx: Context, next: () => Promise<unknown>) {
    await routes(ctx, next);
    if (ctx.status !== 404 || (ctx.body !== undefined && ctx.body !== null)) return;
    const allow = allowedMethods(router, ctx.path);
    if (allow.length === 0) return;
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow.join(', '));
      return;
    }
    renderError(ctx, methodNotAllowed(ctx.method, allow));
  };
}
