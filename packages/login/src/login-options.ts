// fwLogin's options: what a host passes, checked and completed once at start-up into the
// resolved options every route handler of fw-login.ts receives.
import type { Context } from 'koa';
import { FwDefinitionError, loadConfig, resolvePasswordPolicy, type FwConfig, type ModelRegistry, type PasswordPolicy, type PasswordPolicyOptions } from '@fw/core';
import type { FwStore } from '@fw/store';
import type { EphemeralStore, FwTokenService } from '@fw/token';
import { LoginAttempts } from './attempts.js';
import { Authenticator } from './auth.js';
import { Captchas } from './captcha.js';
import { FailedLoginLog } from './failed-logins.js';
import { registeredLoginProxy, resolveLoginHooks, type LoginProxy, type LoginProxyInput, type ResolvedLoginHooks } from './login-proxy.js';
import { loginProvidersReader, type LoginProvider, type LoginProvidersInput } from './login-settings.js';
import { UserService } from './user-service.js';

/** Options of {@link fwLogin}. */
export interface FwLoginOptions {
  /** The store holding users, roles, menus and the login log. */
  store: FwStore;
  /** Issues and resolves tokens. */
  tokens: FwTokenService;
  /**
   * Where failed-attempt counters and captcha answers live: the token store's backend (memory,
   * SQL or Redis), so they hold across instances that share it.
   */
  ephemeral: EphemeralStore;
  /** Resolved configuration (`fw-app.pwdTransferEncrypt`, `fw-app.verifyCodeCount`, lockout keys, prefix). @default loadConfig() */
  config?: FwConfig;
  /** The login hook: a class, an instance, or a partial object. @default the built-in user service */
  proxy?: LoginProxyInput;
  /** An entry class decorated with `@FwLogin(Proxy)`; used when `proxy` is not given. */
  entry?: object;
  /** Captcha lifetime in seconds. @default 120 */
  captchaTtlSeconds?: number;
  /**
   * How many captcha images one client address may fetch per window. `GET /code-img` needs no
   * token and stores an answer per call, so beyond this it answers 429 `TOO_MANY_ATTEMPTS` with
   * `Retry-After` and stores nothing.
   * @default { max: 30, windowSeconds: 60 }
   */
  captchaRate?: { max: number; windowSeconds: number };
  /** Largest accepted request body of these routes, in bytes. @default 16384 */
  bodyLimit?: number;
  /** Same as `fwAuth`'s option: who may send the token as `_token`. */
  allowQueryToken?: (ctx: Context) => boolean;
  /**
   * The other ways to sign in, listed by `GET /login-settings` for the sign-in page's buttons:
   * `fwOAuth(...).providers`, which `fwAdmin` passes for you. A function is read on every request.
   * @default [] (password sign-in only)
   * @example fwLogin({ store, tokens, ephemeral, providers: oauth.providers })
   */
  providers?: LoginProvidersInput;
  /**
   * Writes failed sign-ins to the login log under the caps of `fw-app.failedLoginLogIpPerMinute`
   * and `fw-app.failedLoginLogPerMinute`. Share one with `fwOAuth` (`fwAdmin` does).
   * @default a new FailedLoginLog over `store`, `ephemeral` and `config`
   */
  failedLogins?: FailedLoginLog;
  /**
   * The password policy `POST /change-pwd` applies to the new password (and `GET /login-settings`
   * describes): a policy from `passwordPolicy()` of `@fw/core`, or its options over the
   * configuration's (`fw-app.passwordMinLength`). `fwAdmin` passes the one it gives every path.
   * @default the configuration's policy: at least 10 characters, at most 200, not the account, not a common password
   */
  passwordPolicy?: PasswordPolicy | PasswordPolicyOptions;
  /**
   * The models, so `GET /menu` can give a model's menu the model's titles per language
   * (`titles`) while the menu still bears the model's plain title (issue 20 §8). `fwAdmin`
   * passes its registry.
   * @default none: menus carry their names only
   */
  registry?: ModelRegistry;
}

/** The options of {@link fwLogin} after the checks and defaults of {@link resolveOptions}. */
export interface ResolvedOptions {
  store: FwStore;
  tokens: FwTokenService;
  config: FwConfig;
  users: UserService;
  proxy: LoginProxy;
  /** How the sign-in checks credentials: the built-in check as data, or the host's `login`. */
  checkLogin: ResolvedLoginHooks['checkLogin'];
  attempts: LoginAttempts;
  captchas: Captchas;
  captchaRate: { max: number; windowMs: number };
  ephemeral: EphemeralStore;
  bodyLimit: number;
  authenticator: Authenticator;
  providers: () => LoginProvider[];
  failedLogins: FailedLoginLog;
  passwordPolicy: PasswordPolicy;
  registry: ModelRegistry | undefined;
}

function positiveInteger(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) throw new FwDefinitionError(key, `must be a positive whole number, got ${String(value)}`);
  return value;
}

/**
 * Checks fwLogin's options and fills in the defaults, once, at start-up.
 * @throws {FwDefinitionError} for a missing store, token service or ephemeral store, or a bad option.
 */
export function resolveOptions(options: FwLoginOptions): ResolvedOptions {
  if (!options || typeof options !== 'object') throw new FwDefinitionError('fwLogin', 'options are required');
  if (!options.store?.users) throw new FwDefinitionError('fwLogin.store', 'an FwStore is required');
  if (!options.tokens || typeof options.tokens.loginToken !== 'function') throw new FwDefinitionError('fwLogin.tokens', 'an FwTokenService is required');
  if (!options.ephemeral || typeof options.ephemeral.increment !== 'function') {
    throw new FwDefinitionError('fwLogin.ephemeral', 'an EphemeralStore is required (memory, knex or Redis, from @fw/token)');
  }
  const config = options.config ?? loadConfig();
  const users = new UserService(options.store);
  const proxyInput = options.proxy ?? (options.entry ? registeredLoginProxy(options.entry) : undefined);
  if (options.entry && !options.proxy && !proxyInput) throw new FwDefinitionError('fwLogin.entry', 'the entry class carries no @FwLogin(...) decorator');
  const captchaTtl = positiveInteger('fwLogin.captchaTtlSeconds', options.captchaTtlSeconds, 120);
  const hooks = resolveLoginHooks(proxyInput, { users });
  return {
    store: options.store,
    tokens: options.tokens,
    config,
    users,
    proxy: hooks.proxy,
    checkLogin: hooks.checkLogin,
    attempts: new LoginAttempts(options.ephemeral, {
      captchaAfter: config['fw-app.verifyCodeCount'],
      lockAfter: config['fw-app.loginLockCount'],
      ipLockAfter: config['fw-app.loginIpLockCount'],
      windowMs: config['fw-app.loginLockMinutes'] * 60_000,
    }),
    captchas: new Captchas(options.ephemeral, captchaTtl * 1000),
    captchaRate: {
      max: positiveInteger('fwLogin.captchaRate.max', options.captchaRate?.max, 30),
      windowMs: positiveInteger('fwLogin.captchaRate.windowSeconds', options.captchaRate?.windowSeconds, 60) * 1000,
    },
    ephemeral: options.ephemeral,
    bodyLimit: positiveInteger('fwLogin.bodyLimit', options.bodyLimit, 16 * 1024),
    authenticator: new Authenticator({ tokens: options.tokens, store: options.store, allowQueryToken: options.allowQueryToken }),
    providers: loginProvidersReader(options.providers),
    failedLogins: options.failedLogins ?? new FailedLoginLog({ store: options.store, ephemeral: options.ephemeral, config }),
    passwordPolicy: resolvePasswordPolicy(config, options.passwordPolicy),
    registry: options.registry,
  };
}
