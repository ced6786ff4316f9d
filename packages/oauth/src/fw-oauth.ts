import type Koa from 'koa';
import type { Context, Middleware } from 'koa';
import grantModule from 'grant';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import createSession from 'koa-session';
import { FwDefinitionError, LOGIN_FAILURE_REASON, loadConfig, toFwUser, type FwConfig, type LoginFailureReason } from '@fw/core';
import { composeMiddleware, escapeHtml, setFwApiHeaders } from '@fw/http';
import {
  BaseLoginProxy,
  UserService,
  failureReasonOf,
  issueLoginToken,
  resolveLoginProxy,
  type FailedLoginLog,
  type LoginProvider,
  type LoginProxy,
  type LoginProxyInput,
} from '@fw/login';
import type { FwStore } from '@fw/store';
import { hashToken, type FwTokenService } from '@fw/token';
import { fwHostGuard } from './guard.js';
import { readProvidersFile, resolveProviders, type OAuthProviderInput } from './providers.js';
import { MemorySessionStore, type FwSessionStore } from './session-store.js';

const grant = grantModule.default ?? grantModule;

/** Marks an app the bridge was mounted on: a second mount is refused, not silently layered. */
const MOUNTED = Symbol.for('fw.oauth.mounted');

/** Options of {@link fwOAuth}. */
export interface FwOAuthOptions {
  /** Users (looked up by account), the login log. */
  store: FwStore;
  /** Configuration (`fw-app.apiPrefix`, which the guard keeps open). @default loadConfig() */
  config?: FwConfig;
  /** Issues the 16-character token handed to the browser. */
  tokens: FwTokenService;
  /** The app's public origin, as the provider sees it: `https://admin.example.com`. */
  baseUrl: string;
  /** Provider registrations (see `OAuthProviderInput`); or give `providersFile`. */
  providers?: Record<string, OAuthProviderInput>;
  /** A JSON file of registrations, flat or in Spring's registration/provider form. */
  providersFile?: string;
  /** The login hook whose `loginSuccess` hears about sign-ons; share the one given to `fwLogin`. @default no-op hooks */
  proxy?: LoginProxyInput;
  /** Server-side session store (grant's state does not fit in a cookie). @default MemorySessionStore (one instance only) */
  sessionStore?: FwSessionStore;
  /** Session cookie settings. */
  session?: { key?: string; maxAge?: number; secure?: boolean; sameSite?: 'lax' | 'strict' | 'none' };
  /** The success target of the provider flow. @default '/oauth-callback' */
  callbackPath?: string;
  /** The page that stores the token in the browser. @default '/auth.html' */
  authPage?: string;
  /**
   * The host guard (see `fwHostGuard`): `false` leaves guarding to the host. `signInPath` defaults
   * to the first provider's `/connect/<id>`.
   * @default { signInPath: '/connect/<first provider>' }
   */
  guard?: false | { signInPath?: string; openPaths?: readonly string[] };
  /**
   * Where failed sign-ons go: an account the provider vouched for but `fw_user` does not hold, or
   * a stored user who may not sign in (locked, expired, address). Pass the one `fwLogin` uses, so
   * both share the login log's write caps (`fwAdmin` does).
   * @default failed sign-ons are not logged
   */
  failedLogins?: FailedLoginLog;
}

/**
 * The sign-on bridge's middleware, with the public face of its providers: pass `providers` to
 * `fwLogin` so `GET /login-settings` lists a sign-in button per provider (`fwAdmin` does).
 */
export type FwOAuthMiddleware = Middleware & {
  /** Per registration: id, display name and start URL (`/connect/<id>`); no client id or secret. */
  readonly providers: readonly LoginProvider[];
};

/** What /oauth-callback tells a browser when sign-on fails. */
export const OAUTH_FAILURES = {
  NOT_STARTED: 'sign-in was not started in this browser session, or was already completed',
  PROVIDER: 'the provider did not confirm the sign-in',
  ID_TOKEN: 'the id_token could not be verified',
  NO_ACCOUNT: 'the provider profile has no account attribute',
  ACCOUNT_NOT_FOUND: 'account not found',
  REFUSED: 'sign-in refused',
} as const;

interface FwSession {
  grant?: {
    provider?: string;
    state?: string;
    response?: { error?: unknown; id_token?: string; access_token?: string; profile?: Record<string, unknown> & { error?: unknown } };
  };
  /** The signed-in browser: its Fw token's hash (never the token), checked on every guarded request. */
  fwUser?: { id: number; account: string; provider: string; tokenHash: string };
}

/** Lifetime of a session that has not signed in yet: long enough to sign in at the provider. */
const PENDING_SESSION_MS = 10 * 60 * 1000;

function sessionOf(ctx: Context): FwSession | null {
  return (ctx as Context & { session?: FwSession | null }).session ?? null;
}

function path(key: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\/[A-Za-z0-9._~/-]*$/.test(value)) throw new FwDefinitionError(key, `must be a path such as ${fallback}`);
  return value;
}

/** The account from a profile attribute, which may be nested (`user.login`). */
function accountOf(profile: Record<string, unknown> | undefined, attribute: string): string | undefined {
  let value: unknown = profile;
  for (const part of attribute.split('.')) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.length > 0 && value.length <= 128 ? value : undefined;
}

/**
 * The OAuth 2.0 sign-on bridge, mounted once per app: koa-session with a server-side store,
 * grant for the provider flow (`state`, PKCE and, with `openid`, `nonce` on), the spec's redirect
 * path `/login/oauth2/code/{registrationId}`, `GET /oauth-callback` (profile attribute → `FwUser`
 * by account → 16-character token → `loginSuccess` → login log `oauth:<id>` → redirect to
 * `/auth.html?token=…`), and the host guard.
 *
 * @throws {FwDefinitionError} when `app.keys` is not set (the session cookie is signed), when the
 * bridge is already mounted on `app`, and for any bad option or provider registration.
 * @example
 * app.keys = [process.env.COOKIE_KEY!];
 * app.use(fwWeb());
 * app.use(fwOAuth(app, { store, tokens, baseUrl: 'https://admin.example.com', providers: { github: { 'client-id': …, 'client-secret': …, 'user-name-attribute': 'login' } } }));
 */
export function fwOAuth(app: Koa, options: FwOAuthOptions): FwOAuthMiddleware {
  if (!app || typeof app.use !== 'function') throw new FwDefinitionError('fwOAuth.app', 'pass the Koa app: fwOAuth(app, options)');
  const marked = app as Koa & { [MOUNTED]?: boolean };
  if (marked[MOUNTED]) {
    throw new FwDefinitionError(
      'fwOAuth',
      'the sign-on bridge is already mounted on this app; a second mount would silently replace the first one’s settings, so configure every provider in one fwOAuth call',
    );
  }
  if (!Array.isArray(app.keys) || app.keys.length === 0) throw new FwDefinitionError('fwOAuth.app.keys', 'set app.keys first: the session cookie is signed with them');
  if (!options?.store?.users) throw new FwDefinitionError('fwOAuth.store', 'an FwStore is required');
  if (!options.tokens || typeof options.tokens.loginToken !== 'function') throw new FwDefinitionError('fwOAuth.tokens', 'an FwTokenService is required');
  let origin: string;
  try {
    origin = new URL(options.baseUrl).origin;
  } catch {
    throw new FwDefinitionError('fwOAuth.baseUrl', `must be the app's public origin, got ${JSON.stringify(options.baseUrl)}`);
  }
  const registrations = options.providers ?? (options.providersFile ? readProvidersFile(options.providersFile) : undefined);
  if (!registrations) throw new FwDefinitionError('fwOAuth.providers', 'give providers or providersFile');
  const providers = new Map(resolveProviders(registrations, origin).map((p) => [p.name, p]));
  const callbackPath = path('fwOAuth.callbackPath', options.callbackPath, '/oauth-callback');
  const authPage = path('fwOAuth.authPage', options.authPage, '/auth.html');
  const users = new UserService(options.store);
  const proxy: LoginProxy = resolveLoginProxy(options.proxy ?? BaseLoginProxy, { users });
  const jwks = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  for (const p of providers.values()) if (p.jwksUri) jwks.set(p.name, createRemoteJWKSet(new URL(p.jwksUri)));

  const session = createSession(
    {
      key: options.session?.key ?? 'fw.sid',
      maxAge: options.session?.maxAge ?? 24 * 60 * 60 * 1000,
      httpOnly: true,
      signed: true,
      // The provider sends the browser back with a top-level GET: a Lax cookie comes along.
      sameSite: options.session?.sameSite ?? 'lax',
      ...(options.session?.secure !== undefined ? { secure: options.session.secure } : {}),
      store: options.sessionStore ?? new MemorySessionStore(),
    },
    app,
  ) as Middleware;

  const grantConfig: Record<string, Record<string, unknown>> = {
    defaults: { origin, prefix: '/connect', transport: 'session', state: true, callback: callbackPath, response: ['tokens', 'profile'] },
  };
  for (const p of providers.values()) {
    grantConfig[p.name] = {
      key: p.clientId,
      secret: p.clientSecret,
      scope: p.scope,
      redirect_uri: p.redirectUri,
      pkce: p.pkce,
      nonce: p.scope.includes('openid'),
      profile_url: p.userInfoUrl,
      // OAuth 2.0 separates scopes with spaces; grant's default for providers it does not know is a comma.
      ...(p.authorizeUrl ? { authorize_url: p.authorizeUrl, access_url: p.tokenUrl, oauth: 2, scope_delimiter: ' ' } : {}),
    };
  }
  const grantMiddleware = grant.koa()({ config: grantConfig }) as Middleware;

  // The provider returns to each registration's redirect-uri; grant answers on
  // /connect/<id>/callback. Map one onto the other, and refuse a return into a session that never
  // started a flow (grant itself would skip its state check when the session is empty).
  const returnPaths = new Map<string, string>();
  for (const p of providers.values()) {
    const u = new URL(p.redirectUri);
    if (u.origin === origin) returnPaths.set(u.pathname, p.name);
  }
  const bridge: Middleware = async (ctx, next) => {
    const grantCallback = /^\/connect\/([^/]+)\/callback$/.exec(ctx.path)?.[1];
    const returning = returnPaths.get(ctx.path) ?? (grantCallback !== undefined && providers.has(grantCallback) ? grantCallback : undefined);
    if (returning !== undefined) {
      const started = sessionOf(ctx)?.grant;
      if (!started?.state || started.provider !== returning) return fail(ctx, 400, OAUTH_FAILURES.NOT_STARTED);
      const query = ctx.querystring ? `?${ctx.querystring}` : '';
      ctx.originalUrl = `/connect/${returning}/callback${query}`;
      ctx.path = `/connect/${returning}/callback`;
    }
    if (ctx.path === callbackPath) return callback(ctx);
    const starting = /^\/connect\/([^/]+)\/?$/.exec(ctx.path)?.[1];
    if (starting !== undefined && providers.has(starting)) {
      const current = sessionOf(ctx) as (FwSession & { maxAge?: number }) | null;
      // A browser that only starts a sign-in holds a short-lived session, so anonymous requests
      // cannot fill the store with day-long ones.
      if (current && !current.fwUser) current.maxAge = PENDING_SESSION_MS;
    }
    return grantMiddleware(ctx, next);
  };

  async function callback(ctx: Context): Promise<void> {
    const current = sessionOf(ctx);
    const flow = current?.grant;
    // Consumed at once: a replayed callback finds nothing.
    if (current) delete current.grant;
    if (!flow?.state || !flow.response || !flow.provider) return fail(ctx, 400, OAUTH_FAILURES.NOT_STARTED);
    const provider = providers.get(flow.provider);
    const response = flow.response;
    if (!provider || response.error || !response.access_token) return fail(ctx, 401, OAUTH_FAILURES.PROVIDER);
    if (response.id_token && jwks.has(provider.name)) {
      try {
        const { payload } = await jwtVerify(response.id_token, jwks.get(provider.name)!, { audience: provider.clientId, ...(provider.issuer ? { issuer: provider.issuer } : {}) });
        // OpenID Connect Core 5.3.2: the user-info answer must be about the id_token's subject.
        const profileSub = response.profile?.sub;
        if (profileSub !== undefined && String(profileSub) !== payload.sub) return fail(ctx, 401, OAUTH_FAILURES.ID_TOKEN);
      } catch {
        return fail(ctx, 401, OAUTH_FAILURES.ID_TOKEN);
      }
    }
    const account = accountOf(response.profile && !response.profile.error ? response.profile : undefined, provider.accountAttribute);
    if (!account) return fail(ctx, 401, OAUTH_FAILURES.NO_ACCOUNT);
    // Issue 19 §6: a sign-on that named an account and failed is a failed sign-in of that account.
    const logged = (reason: LoginFailureReason, user: { id: number; account: string } | null) =>
      options.failedLogins?.record({ account, reason, method: `oauth:${provider.name}`, ip: ctx.ip, userAgent: ctx.get('user-agent') || null, user }, (error) =>
        ctx.app.emit('error', error, ctx),
      );
    const stored = await options.store.users.findByAccount(account);
    if (!stored) {
      await logged(LOGIN_FAILURE_REASON.NOT_STORED, null);
      return fail(ctx, 403, OAUTH_FAILURES.ACCOUNT_NOT_FOUND);
    }
    const refusal = users.refusal(stored, ctx.ip);
    if (refusal) {
      await logged(failureReasonOf(refusal), { id: stored.id, account: stored.account });
      return fail(ctx, 403, refusal);
    }
    const user = toFwUser(stored);
    const issued = await issueLoginToken(
      { store: options.store, tokens: options.tokens, proxy },
      { ip: ctx.ip, userAgent: ctx.get('user-agent') || null },
      user,
      `oauth:${provider.name}`,
    );
    if (!issued) {
      await logged(LOGIN_FAILURE_REASON.REFUSED_BY_HOOK, { id: stored.id, account: stored.account });
      return fail(ctx, 401, OAUTH_FAILURES.REFUSED);
    }
    // A new session id for the signed-in browser (no fixation: an id known before sign-in is
    // worthless after it), holding nothing from before, living no longer than the token.
    const signedIn = sessionOf(ctx) as (FwSession & { regenerate(): Promise<void> | undefined; maxAge?: number }) | null;
    if (signedIn) {
      await signedIn.regenerate();
      const fresh = sessionOf(ctx) as FwSession & { maxAge?: number };
      fresh.fwUser = { id: user.id, account: user.account, provider: provider.name, tokenHash: hashToken(issued.token) };
      fresh.maxAge = Math.max(1000, issued.expiresAt.getTime() - Date.now());
    }
    setFwApiHeaders(ctx);
    ctx.redirect(`${authPage}?token=${encodeURIComponent(issued.token)}`);
  }

  const config = options.config ?? loadConfig();
  const tokens = options.tokens;
  // A browser session counts only while its Fw token lives and its user may sign in: a logout
  // (which revokes the token), a lock or an expiry ends the page session too.
  async function isSignedIn(ctx: Context): Promise<boolean> {
    const current = sessionOf(ctx);
    const signed = current?.fwUser;
    if (!signed) return false;
    const record = typeof signed.tokenHash === 'string' ? await tokens.store.find(signed.tokenHash, tokens.now()) : undefined;
    const stored = record && record.userId === signed.id ? await users.findStored(signed.id) : undefined;
    if (stored && !users.refusal(stored, ctx.ip)) return true;
    (ctx as Context & { session: FwSession | null }).session = null;
    return false;
  }
  const guard =
    options.guard === false
      ? undefined
      : fwHostGuard({
          signInPath: options.guard?.signInPath ?? `/connect/${providers.keys().next().value}`,
          openPaths: [authPage, callbackPath, '/connect/**', ...returnPaths.keys(), ...(options.guard?.openPaths ?? [])],
          apiPrefixes: [config['fw-app.apiPrefix'], '/fw-cloud-api'],
          isSignedIn,
        });

  marked[MOUNTED] = true;
  const middleware: Middleware = composeMiddleware(guard ? [session, bridge, guard] : [session, bridge]);
  const publicProviders = Object.freeze([...providers.values()].map((p) => Object.freeze({ id: p.name, name: p.displayName, url: `/connect/${p.name}` })));
  return Object.assign(middleware, { providers: publicProviders });
}

function fail(ctx: Context, status: number, reason: string): void {
  ctx.status = status;
  setFwApiHeaders(ctx);
  ctx.type = 'html';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head><body><h1>Sign-in failed</h1><p>${escapeHtml(reason)}</p></body></html>`;
}
