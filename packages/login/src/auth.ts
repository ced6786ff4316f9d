import type { Context, DefaultState, Middleware } from 'koa';
import { FwDefinitionError, FwError, isFwError, isUnavailableError, toFwUser, unavailableError, type FwUser } from '@fw/core';
import type { FwStore } from '@fw/store';
import { KnexTokenStore, hashToken, isTokenShape, type FwTokenService } from '@fw/token';
import { UserService, type StoredUserLike } from './user-service.js';

/** What Fw keeps for a request, under `ctx.state.fw`. */
export interface FwRequestState {
  /**
   * The signed-in user (fresh from `fw_user` on every request). `isAdmin` is the stored flag OR
   * the token's own admin power (given at sign-in by a login hook that returned `isAdmin: true`).
   */
  user: FwUser;
  /** The token the request carried. */
  token: string;
  /** The grants version read with the user, when the lookup provided it (saves the power engine a query). */
  grantsVersion?: number;
  /**
   * True when the user must change the password first (an administrator set it and the user has
   * not changed it since): every route but the password change answers 403
   * `PASSWORD_CHANGE_REQUIRED` (see `requireAuthState` and `fwAuth`'s `allowPasswordChange`).
   */
  mustChangePassword?: boolean;
}

declare module 'koa' {
  interface DefaultState {
    /** Set by `fwAuth` (and the login routes) for an authenticated request. */
    fw?: FwRequestState;
  }
}

/**
 * The state of a request that passed a (non-optional) `fwAuth`: `ctx.state.fw` is there. Hosts
 * extend it like any interface (`interface MyState extends FwAuthState { tenant: string }`).
 */
export interface FwAuthState extends DefaultState {
  fw: FwRequestState;
}

/**
 * What `fwAuth` returns. Usable wherever a plain Koa middleware is, and in a router chain it tells
 * the handlers after it that `ctx.state.fw` is set, so `(ctx) => ctx.state.fw.user` needs no `!`
 * (TypeScript infers a route's state from the last call signature of each middleware).
 */
export type FwAuthMiddleware = Middleware & Middleware<FwAuthState>;

/** Options of {@link fwAuth}. */
export interface FwAuthOptions {
  /** The token service that issued the tokens. */
  tokens: FwTokenService;
  /** The store holding `fw_user`. */
  store: FwStore;
  /**
   * Whether this request may carry its token as the `_token` query parameter (links that
   * download a file cannot set headers). Query tokens end up in logs and browser history, so only
   * GET downloads may use them.
   * @default GET requests whose path contains `/export` or `/print`
   */
  allowQueryToken?: (ctx: Context) => boolean;
  /** Let requests without a token through (without `ctx.state.fw`) instead of answering 401. @default false */
  optional?: boolean;
  /**
   * Let the token of a user who must change the password through (`ctx.state.fw.mustChangePassword`
   * is then true). Off, such a request is answered 403 `PASSWORD_CHANGE_REQUIRED`: only the routes
   * a person needs to change the password (Fw's own userinfo, change-pwd, logout) opt in.
   * @default false
   */
  allowPasswordChange?: boolean;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function defaultAllowQueryToken(ctx: Context): boolean {
  return ctx.method === 'GET' && /\/(export|print)(\/|$)/.test(ctx.path);
}

/** The token a request carries, by the rules of {@link FwAuthOptions.allowQueryToken}. */
export function requestToken(ctx: Context, allowQueryToken: (ctx: Context) => boolean = defaultAllowQueryToken): string | undefined {
  const header = ctx.get('token');
  if (header) return header.trim();
  const bearer = BEARER.exec(ctx.get('authorization'));
  if (bearer) return bearer[1];
  const query = ctx.query._token;
  if (typeof query === 'string' && query !== '' && allowQueryToken(ctx)) return query;
  return undefined;
}

/**
 * Authenticates requests: turns the `token` header, `Authorization: Bearer <t>` or (GET downloads
 * only) `_token` into `ctx.state.fw.user`. Answers 401 in the Fw error shape when the token is
 * missing, malformed, expired or revoked, or its user is gone, locked, expired or outside the IP
 * allowlist; token and user are checked against the store on every request, so a lock takes
 * effect at once.
 *
 * With `optional: true` a request may pass without a user, so the result is a plain `Middleware`
 * and `ctx.state.fw` stays optional.
 *
 * The token of a user who must change the password (see {@link FwRequestState.mustChangePassword})
 * is answered 403 `PASSWORD_CHANGE_REQUIRED` unless `allowPasswordChange` is set.
 *
 * @example
 * router.get('/reports', fwAuth({ tokens, store }), (ctx) => { ctx.body = report(ctx.state.fw.user); });
 */
export function fwAuth(options: FwAuthOptions & { optional?: false }): FwAuthMiddleware;
export function fwAuth(options: FwAuthOptions): Middleware;
export function fwAuth(options: FwAuthOptions): Middleware {
  if (!options?.tokens || typeof options.tokens.resolve !== 'function') throw new FwDefinitionError('fwAuth.tokens', 'an FwTokenService is required');
  if (!options.store?.users) throw new FwDefinitionError('fwAuth.store', 'an FwStore is required');
  const authenticator = new Authenticator(options);
  const optional = options.optional === true;
  const allowPasswordChange = options.allowPasswordChange === true;
  return async function fwAuth(ctx, next) {
    let state: FwRequestState | undefined;
    try {
      state = await authenticator.authenticate(ctx);
    } catch (error) {
      // A token that cannot be checked is refused as a 503 with Retry-After, which Koa's own error
      // handler answers too, for a host that mounts fwAuth without fwErrorHandler (issue 10 §5).
      throw isFwError(error) || !isUnavailableError(error) ? error : unavailableError(error);
    }
    if (state) {
      if (state.mustChangePassword === true && !allowPasswordChange) throw new FwError('PASSWORD_CHANGE_REQUIRED');
      ctx.state.fw = state;
    } else if (!optional) throw new FwError('UNAUTHENTICATED');
    await next();
  };
}

/**
 * Turns a request's token into its user. When the token service keeps its tokens in this
 * store's own `fw_token` table (a `KnexTokenStore` on the same knex, no sliding renewal), one
 * lookup reads token, user and grants version together; otherwise the token service is asked,
 * then `store.sessions.user` reads the user and grants version together. Both paths answer with
 * the committed data as of the request: a logout, a lock or a role change on any instance applies
 * to the next request.
 */
export class Authenticator {
  readonly #tokens: FwTokenService;
  readonly #store: FwStore;
  readonly #users: UserService;
  readonly #allowQueryToken: (ctx: Context) => boolean;
  readonly #oneLookup: boolean;

  constructor(options: { tokens: FwTokenService; store: FwStore; allowQueryToken?: ((ctx: Context) => boolean) | undefined }) {
    this.#tokens = options.tokens;
    this.#store = options.store;
    this.#users = new UserService(options.store);
    this.#allowQueryToken = options.allowQueryToken ?? defaultAllowQueryToken;
    const tokenStore = options.tokens.store;
    this.#oneLookup = tokenStore instanceof KnexTokenStore && tokenStore.knex === options.store.knex && tokenStore.table === 'fw_token' && !options.tokens.sliding;
  }

  /**
   * The request's user, or undefined when it carries no token.
   * @throws {FwError} 401 `TOKEN_EXPIRED` / `ACCOUNT_DISABLED` when it carries a token that no longer works.
   */
  async authenticate(ctx: Context): Promise<FwRequestState | undefined> {
    const token = requestToken(ctx, this.#allowQueryToken);
    if (token === undefined) return undefined;
    return this.check(token, ctx.ip);
  }

  /**
   * The user of `token`, checked as a request from `ip` would be: the token live, the user there,
   * not locked or expired, and `ip` on their allowlist (no address given: not checked). What
   * {@link authenticate} does for a request, and what a long-lived connection (a live-table
   * stream) asks again now and then.
   * @throws {FwError} 401 `TOKEN_EXPIRED` / `ACCOUNT_DISABLED` when the token no longer works.
   */
  async check(token: string, ip: string | undefined): Promise<FwRequestState> {
    let stored: (StoredUserLike & { mustChangePassword: boolean }) | undefined;
    let grantsVersion: number | undefined;
    let tokenAdmin: boolean;
    let hash: string | undefined;
    if (this.#oneLookup) {
      hash = isTokenShape(token) ? hashToken(token) : undefined;
      const session = hash !== undefined ? await this.#store.sessions.lookup(hash, this.#tokens.now()) : undefined;
      stored = session?.user;
      grantsVersion = session?.grantsVersion;
      tokenAdmin = session?.tokenAdmin === true;
    } else {
      // Tokens kept elsewhere (memory, Redis): the user and grants version by id, one prepared
      // statement where the store has one, as current as the one lookup above.
      const session = await this.#tokens.resolve(token);
      const found = session ? await this.#store.sessions.user(session.userId) : undefined;
      stored = found?.user;
      grantsVersion = found?.grantsVersion;
      tokenAdmin = session?.admin === true;
    }
    if (!stored) throw new FwError('TOKEN_EXPIRED');
    const refusal = this.#users.refusal(stored, ip);
    if (refusal) throw new FwError('ACCOUNT_DISABLED', refusal, { status: 401 });
    // "Last seen" of the session list (issue 19 §6): not awaited, so the request never waits for
    // it, and throttled in the service to one write per token per minute; it never rejects.
    void this.#tokens.seenHash(hash ?? hashToken(token));
    return {
      user: toFwUser(stored, { admin: tokenAdmin }),
      token,
      ...(grantsVersion !== undefined ? { grantsVersion } : {}),
      // From the same row, no extra query: the state carries it, so every route that reads the
      // state through requireAuthState or fwAuth refuses it unless it opted in (issue 19 §3).
      ...(stored.mustChangePassword ? { mustChangePassword: true } : {}),
    };
  }
}
