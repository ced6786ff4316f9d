import { FwDefinitionError, type FwUser } from '@fw/core';
import type { LoginResult, UserService } from './user-service.js';

type Awaitable<T> = T | Promise<T>;

/**
 * The login hook: how Fw checks credentials and what it tells the host about logins. Every
 * method has a default, so an implementation overrides only what it needs (extend
 * {@link BaseLoginProxy}, or pass a partial object).
 */
export interface LoginProxy {
  /**
   * Checks the credentials and returns the user. `pwd` is already plain text. Throwing anything
   * fails the login, with the error's message as the reason. The returned user must be a stored
   * `fw_user` row (by id), even when the check happened elsewhere (LDAP, SSO).
   * @default the built-in user service: scrypt password, status, expiry and IP allowlist
   */
  login(account: string, pwd: string): Awaitable<FwUser>;
  /** After a token was issued (also by the OAuth sign-on). @default does nothing */
  loginSuccess(user: FwUser, token: string): Awaitable<void>;
  /** After a token was revoked by logout. @default does nothing */
  logout(token: string): Awaitable<void>;
  /** Before a new password is saved; throw to refuse it. @default does nothing */
  beforeChangePwd(user: FwUser, newPwd: string): Awaitable<void>;
  /** After a new password was saved. @default does nothing */
  afterChangePwd(user: FwUser, originPwd: string, newPwd: string): Awaitable<void>;
}

/** What a proxy class is constructed with. */
export interface LoginProxyDeps {
  /** The built-in user service (password check, lookups). */
  users: UserService;
}

/**
 * The default login hook. Extend it and override what you need; `this.users` is the built-in
 * user service.
 *
 * @example
 * class LdapLogin extends BaseLoginProxy {
 *   override async login(account: string, pwd: string) {
 *     await ldapBind(account, pwd);               // throws with the directory's reason
 *     return this.users.requireStoredUser(account); // the fw_user row of that account
 *   }
 * }
 */
export class BaseLoginProxy implements LoginProxy {
  protected readonly users: UserService;

  constructor(deps: LoginProxyDeps) {
    this.users = deps.users;
  }

  /**
   * The built-in check as data: `{ pass: true, user, stored }` (the `fw_user` row it read) or
   * `{ pass: false, reason }`. While `login` is not overridden, the sign-in flow calls this and
   * reads a refusal as the answer it is; `login` is the same check for hooks that wrap it.
   * @param ip the client address for the allowlist; defaults to the current login request's.
   */
  checkLogin(account: string, pwd: string, ip?: string): Promise<LoginResult> {
    return this.users.login(account, pwd, ip);
  }

  /** The built-in check in the hook's form: the user, or the refusal's reason thrown as an `Error`. */
  async login(account: string, pwd: string): Promise<FwUser> {
    const result = await this.checkLogin(account, pwd);
    if (!result.pass) throw new Error(result.reason);
    return result.user;
  }

  loginSuccess(_user: FwUser, _token: string): Awaitable<void> {}

  logout(_token: string): Awaitable<void> {}

  beforeChangePwd(_user: FwUser, _newPwd: string): Awaitable<void> {}

  afterChangePwd(_user: FwUser, _originPwd: string, _newPwd: string): Awaitable<void> {}
}

/** A class whose instances are login hooks, constructed with {@link LoginProxyDeps}. */
export type LoginProxyClass = new (deps: LoginProxyDeps) => Partial<LoginProxy>;

/** What the `proxy` option accepts: a class, an instance or a partial object. */
export type LoginProxyInput = LoginProxyClass | Partial<LoginProxy>;

const PROXY_METHODS = ['login', 'loginSuccess', 'logout', 'beforeChangePwd', 'afterChangePwd'] as const;
const registered = new WeakMap<object, LoginProxyInput>();

/**
 * Class decorator for hosts that keep an entry class: the TypeScript form of the reference
 * framework's `@FwLogin(ProxyClass)`. Pass the entry class as `fwLogin({ entry })`.
 *
 * @example
 * @FwLogin(LdapLogin)
 * class App {}
 * app.use(fwLogin({ store, tokens, entry: App }));
 */
export function FwLogin(proxy: LoginProxyInput) {
  return function register<T extends abstract new (...args: never[]) => unknown>(target: T, _context?: ClassDecoratorContext<T>): T {
    registered.set(target, proxy);
    return target;
  };
}

/** The proxy registered on an entry class with {@link FwLogin}, if any. */
export function registeredLoginProxy(entry: object): LoginProxyInput | undefined {
  return registered.get(entry);
}

/**
 * How the sign-in flow checks credentials: the built-in check answers a refusal as data; a host's
 * own `login` answers the user it returned (unchecked yet), and its throws stay throws, sorted by
 * `classifyLoginFailure` as the hook rules say.
 */
export type CredentialCheck = LoginResult | { pass: true; user: FwUser | null | undefined; stored?: undefined };

/** The effective login hook, and the credential check the sign-in flow runs with it. */
export interface ResolvedLoginHooks {
  proxy: LoginProxy;
  checkLogin(account: string, pwd: string, ip: string): Promise<CredentialCheck>;
}

/**
 * Builds the effective login hook: the given methods, and the defaults for the rest.
 * @throws {FwDefinitionError} when a method is present but not a function.
 */
export function resolveLoginProxy(input: LoginProxyInput | undefined, deps: LoginProxyDeps): LoginProxy {
  return resolveLoginHooks(input, deps).proxy;
}

/**
 * {@link resolveLoginProxy}, with the credential check: `checkLogin` of the {@link BaseLoginProxy}
 * whose `login` is in force when that is the built-in one, else the host's `login`.
 * @throws {FwDefinitionError} when a method is present but not a function.
 */
export function resolveLoginHooks(input: LoginProxyInput | undefined, deps: LoginProxyDeps): ResolvedLoginHooks {
  const base = new BaseLoginProxy(deps);
  const builtIn = (owner: BaseLoginProxy) => (account: string, pwd: string, ip: string) => owner.checkLogin(account, pwd, ip);
  if (input === undefined) return { proxy: base, checkLogin: builtIn(base) };
  const custom: Partial<LoginProxy> = typeof input === 'function' ? new input(deps) : input;
  if (typeof custom !== 'object' || custom === null) throw new FwDefinitionError('fwLogin.proxy', 'must be a LoginProxy class or object');
  const resolved = {} as Record<(typeof PROXY_METHODS)[number], unknown>;
  for (const method of PROXY_METHODS) {
    const fn: unknown = (custom as Record<string, unknown>)[method];
    if (fn === undefined) {
      resolved[method] = (base[method] as (...args: unknown[]) => unknown).bind(base);
    } else if (typeof fn === 'function') {
      resolved[method] = (fn as (...args: unknown[]) => unknown).bind(custom);
    } else {
      throw new FwDefinitionError(`fwLogin.proxy.${method}`, 'must be a function');
    }
  }
  const proxy = resolved as unknown as LoginProxy;
  if (custom.login === undefined) return { proxy, checkLogin: builtIn(base) };
  if (custom instanceof BaseLoginProxy && custom.login === BaseLoginProxy.prototype.login) return { proxy, checkLogin: builtIn(custom) };
  return { proxy, checkLogin: async (account, pwd) => ({ pass: true, user: await proxy.login(account, pwd) }) };
}
