import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import { mountRoutes, readJsonBody, requireAuthState, routesWithAllowedMethods } from '@fw/http';
import type { FwRequestState } from './auth.js';
import { accountRoutes } from './account-routes.js';
import { activityRoutes } from './activity-routes.js';
import { resolveOptions, type FwLoginOptions, type ResolvedOptions } from './login-options.js';
import { PREF_BODY_LIMIT, prefRoutes } from './pref-routes.js';
import { sessionRoutes } from './session-routes.js';
import { signInRoutes, type LoginRoute } from './sign-in-routes.js';

export type { FwLoginOptions } from './login-options.js';
export type { LoginBody, LoginResponse, LoginRoute } from './sign-in-routes.js';

/**
 * The routes of `fwLogin` itself, each contract beside its handler: the sign-in routes and the
 * account routes (the session, preference and activity routes are {@link sessionRoutes},
 * {@link prefRoutes} and {@link activityRoutes}).
 */
export const loginRoutes: readonly LoginRoute[] = [...signInRoutes, ...accountRoutes];

/** The request's signed-in state, as the login routes require it. */
async function requireAuth(ctx: Context, o: ResolvedOptions, passwordChange: 'allowed' | 'refused' = 'refused'): Promise<FwRequestState> {
  return requireAuthState(ctx, (c) => o.authenticator.authenticate(c), { allowPasswordChange: passwordChange === 'allowed' });
}

/**
 * The router of `fwLogin`: every declared route under the API prefix, each group with the
 * services it needs and its body limit.
 * @internal exported for the test that holds the mounted routes to the declarations
 */
export function loginRouter(o: ResolvedOptions): Router {
  const router = new Router({ prefix: o.config['fw-app.apiPrefix'] });
  const readJson = (ctx: Context) => readJsonBody(ctx, { limit: o.bodyLimit });
  const who = (ctx: Context) => requireAuth(ctx, o);
  mountRoutes(router, loginRoutes, { deps: o, readJson, who: (ctx, route) => requireAuth(ctx, o, route.passwordChange ?? 'refused') });
  mountRoutes(router, sessionRoutes, { deps: { store: o.store, tokens: o.tokens, logout: async (token: string) => o.proxy.logout(token) }, readJson, who });
  mountRoutes(router, prefRoutes, { deps: { store: o.store }, readJson: (ctx) => readJsonBody(ctx, { limit: PREF_BODY_LIMIT }), who });
  mountRoutes(router, activityRoutes, { deps: { store: o.store }, readJson, who });
  return router;
}

/**
 * The login routes under the configured prefix (`/fw-api` by default): `POST /login`,
 * `GET|POST /logout`, `POST /change-pwd`, `GET /code-img`, `GET /userinfo`, `GET /menu`,
 * `GET /login-settings` (open: title, password transfer encoding, captcha threshold, sign-in
 * providers), `POST /open-api/token` (an open-API key's app id and secret exchanged for a token),
 * and the session routes `GET /sessions`, `GET /sessions/online`, `DELETE /sessions/{id}`,
 * `POST /sessions/revoke-others`, and the signed-in user's own preferences `GET`, `PUT` and
 * `DELETE /prefs/{key}` (see `docs/login.md`).
 * Requests to other paths pass through untouched.
 *
 * @throws {FwDefinitionError} at once for a missing store, token service or ephemeral store, a
 * proxy method that is not a function, or a bad option.
 * @example
 * app.use(fwLogin({ store, tokens, ephemeral: new MemoryEphemeralStore(), proxy: LdapLogin }));
 */
export function fwLogin(options: FwLoginOptions): Middleware {
  const o = resolveOptions(options);
  // A login path asked with another method (GET /login) is a 405 naming the right one.
  const routes = routesWithAllowedMethods(loginRouter(o));
  return async function fwLogin(ctx, next) {
    await routes(ctx, next);
  };
}
